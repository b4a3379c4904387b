/* The image map (imagemap.h): parsed once, looked up by binary search. */
#include "imagemap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC "rtbench cycles map 1"

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

static int cmp_range(const void *a, const void *b)
{
    const struct rtb_range *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

static int cmp_stamp(const void *a, const void *b)
{
    const struct rtb_stampdef *x = a, *y = b;
    return (x->addr > y->addr) - (x->addr < y->addr);
}

/* Append one element of `size` bytes to a growable array. */
static void *grow(void *arr, size_t *n, size_t size, size_t *cap)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        arr = realloc(arr, *cap * size);
        if (!arr)
            abort();
    }
    (*n)++;
    return arr;
}

int rtb_map_load(const char *path, struct rtb_map *m, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    size_t cap_r = 0, cap_o = 0, cap_s = 0, cap_a = 0, cap_h = 0;
    char line[512];
    int lineno = 0;
    memset(m, 0, sizeof *m);
    m->computed_tail = 1;
    if (!f) {
        snprintf(err, errlen, "cannot open the image map %s", path);
        return -1;
    }
    while (fgets(line, sizeof line, f)) {
        unsigned a, b, k, h, t;
        char word[32], cls[16];
        lineno++;
        line[strcspn(line, "\r\n")] = 0;
        if (lineno == 1) {
            if (strcmp(line, MAGIC) != 0) {
                snprintf(err, errlen, "%s: not an rtbench cycles map", path);
                fclose(f);
                return -1;
            }
            continue;
        }
        if (!line[0] || line[0] == '#')
            continue;
        if (sscanf(line, "%31s", word) != 1)
            continue;
        if (!strcmp(word, "range") && sscanf(line, "range %x %x %15s", &a, &b, cls) == 3) {
            int c = !strcmp(cls, "kernel") ? CLS_KERNEL : !strcmp(cls, "api") ? CLS_API
                    : !strcmp(cls, "ours") ? CLS_OURS : -1;
            if (c < 0 || b <= a)
                goto bad;
            m->ranges = grow(m->ranges, &m->nranges, sizeof *m->ranges, &cap_r);
            m->ranges[m->nranges - 1] = (struct rtb_range){a, b, (uint8_t)c};
        } else if (!strcmp(word, "ours") && sscanf(line, "ours %x", &a) == 1) {
            m->ours = grow(m->ours, &m->nours, sizeof *m->ours, &cap_o);
            m->ours[m->nours - 1] = a & ~1u;
        } else if (!strcmp(word, "stamp") && sscanf(line, "stamp %x %u %u %u", &a, &k, &h, &t) == 4) {
            if (k > 1 || h > 7 || t > 7)
                goto bad;
            m->stamps = grow(m->stamps, &m->nstamps, sizeof *m->stamps, &cap_s);
            m->stamps[m->nstamps - 1] = (struct rtb_stampdef){a & ~1u, (uint8_t)k, (uint8_t)h, (uint8_t)t};
        } else if (!strcmp(word, "anchor") && sscanf(line, "anchor %x", &a) == 1) {
            m->anchors = grow(m->anchors, &m->nanchors, sizeof *m->anchors, &cap_a);
            m->anchors[m->nanchors - 1] = a & ~1u;
        } else if (!strcmp(word, "written") && sscanf(line, "written %x", &a) == 1) {
            m->written = a & ~1u;
        } else if (!strcmp(word, "handler") && sscanf(line, "handler %x", &a) == 1) {
            m->handlers = grow(m->handlers, &m->nhandlers, sizeof *m->handlers, &cap_h);
            m->handlers[m->nhandlers - 1] = a & ~1u;
        } else if (!strcmp(word, "computed-tail") && sscanf(line, "computed-tail %u", &t) == 1) {
            if (t > 7)
                goto bad;
            m->computed_tail = t;
        } else {
            goto bad;
        }
    }
    fclose(f);
    qsort(m->ranges, m->nranges, sizeof *m->ranges, cmp_range);
    qsort(m->ours, m->nours, sizeof *m->ours, cmp_u32);
    qsort(m->stamps, m->nstamps, sizeof *m->stamps, cmp_stamp);
    qsort(m->anchors, m->nanchors, sizeof *m->anchors, cmp_u32);
    qsort(m->handlers, m->nhandlers, sizeof *m->handlers, cmp_u32);
    return 0;
bad:
    snprintf(err, errlen, "%s:%d: not a map line: %.80s", path, lineno, line);
    fclose(f);
    return -1;
}

static int has_u32(const uint32_t *v, size_t n, uint32_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x;
}

int rtb_map_class(const struct rtb_map *m, uint32_t addr)
{
    if (has_u32(m->ours, m->nours, addr))
        return CLS_OURS;
    size_t lo = 0, hi = m->nranges; /* the last range starting at or below addr */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->ranges[mid].start <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && addr < m->ranges[lo - 1].end)
        return m->ranges[lo - 1].cls;
    return CLS_KERNEL;
}

const struct rtb_stampdef *rtb_map_stamp(const struct rtb_map *m, uint32_t addr)
{
    size_t lo = 0, hi = m->nstamps;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->stamps[mid].addr < addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < m->nstamps && m->stamps[lo].addr == addr ? &m->stamps[lo] : NULL;
}

int rtb_map_is_anchor(const struct rtb_map *m, uint32_t addr)
{
    return has_u32(m->anchors, m->nanchors, addr);
}

int rtb_map_is_handler(const struct rtb_map *m, uint32_t addr)
{
    return has_u32(m->handlers, m->nhandlers, addr);
}
