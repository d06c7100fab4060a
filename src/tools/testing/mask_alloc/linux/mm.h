/* SPDX-License-Identifier: GPL-2.0 */
/* Harness shim: everything lives in shim.h. */
#include "../shim.h"
