// SPDX-License-Identifier: GPL-2.0
/*
 * sroce tracepoints: the one place that creates them (trace.h).
 */
#define CREATE_TRACE_POINTS
#include "trace.h"
