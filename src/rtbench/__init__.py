"""rtbench: real-time kernel benchmark suite (Python side).

The C harness measures; this package builds and runs it, stores every run in
SQLite and renders data sheets.
"""

__version__ = "0.1.0"
