"""`python -m rtbench.kernels env-sources`: one line per kernel source tree,
VARIABLE FOLDER (scripts/test.sh points each variable at FOLDER under the
test material unless it is set); `names`: the kernels, one a line."""

import sys

from rtbench import kernels


def main(argv: list[str]) -> int:
    if argv == ["env-sources"]:
        for var, folder in kernels.env_sources():
            print(var, folder)
        return 0
    if argv == ["names"]:
        print("\n".join(kernels.names()))
        return 0
    print("usage: python -m rtbench.kernels env-sources|names", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
