/*
 * A minimal JSON-lines writer for records: no stdio, no allocation. Text is
 * gathered in a fixed buffer and handed to rtb_port_write() when full and at
 * the end of each record, so a record is written in few port calls and never
 * interleaves with another. Strings are escaped; doubles are written as fixed
 * decimals (never NaN or Inf: those become 0, which the writer cannot hide,
 * so callers never pass them).
 */
#ifndef RTB_JSONW_H
#define RTB_JSONW_H

#include <stdbool.h>
#include <stdint.h>

void jw_begin(const char *type);         /* '{"type":"<type>"' */
void jw_str(const char *key, const char *v);
void jw_u64(const char *key, uint64_t v);
void jw_i64(const char *key, int64_t v);
void jw_fix3(const char *key, double v); /* three decimals */
void jw_bool(const char *key, bool v);
void jw_obj(const char *key);            /* "key":{  — closed by jw_close('}') */
void jw_arr(const char *key);            /* "key":[  — closed by jw_close(']') */
void jw_elem_u64x3(uint64_t a, uint64_t b, uint64_t c); /* [a,b,c] inside an array */
void jw_close(char c);
void jw_end(void);                       /* '}\n' and flush */

/* Formatting helpers, also used by tests: return characters written (no NUL). */
int jw_fmt_u64(char *buf, uint64_t v);
int jw_fmt_fix3(char *buf, double v);

#endif
