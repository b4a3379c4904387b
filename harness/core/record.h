/* Record output: the only place that knows the record format (docs/records.md). */
#ifndef RTB_RECORD_H
#define RTB_RECORD_H

#include <rtb/runner.h>
#include "calib.h"
#include "ctx.h"

#define RTB_RECORD_SCHEMA 2

/* unsupported_why: NULL if the port has what the metric needs. */
void rtb_record_registry(const char *id, const char *unsupported_why);
void rtb_record_session(const struct rtb_config *cfg, const struct rtb_calib *cal,
                        const struct rtb_core_clock *core, const struct rtb_port_info *info);
void rtb_record_begin(const char *id);
void rtb_record_metric(const struct rtb_ctx *c, const struct rtb_calib *cal,
                       const struct rtb_port_info *info, const char *profile);
void rtb_record_end(unsigned metrics);
/* The port's unit is a time ("ticks", "cycles"), not a count ("instructions"). */
bool rtb_unit_is_time(const char *unit);

#endif
