/* The sequences of seq.S: each runs once between an opening and a closing
 * window stamp and stores the two stamps' values in t[0], t[1]. */
#include <stdint.h>

struct seq {
    const char *name;
    void (*run)(uint32_t t[2]);
};
extern const struct seq sequences[]; /* ends with a NULL name */
