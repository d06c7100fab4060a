/* SPDX-License-Identifier: GPL-2.0 */
#ifndef MASK_HARNESS_STRESS_H
#define MASK_HARNESS_STRESS_H

/* Returns 0 if the run matched the model, prints the step otherwise. */
int stress_run(u64 seed, unsigned long iters);

#endif
