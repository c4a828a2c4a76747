/* line_diff.h: a unified diff of two texts, line by line (step 11). */
#ifndef PLD_TUTORIAL_LINE_DIFF_H
#define PLD_TUTORIAL_LINE_DIFF_H

#include <stdio.h>

/* Prints the diff from `a` to `b` (both newline-separated) as one hunk with
 * full context: ' ' lines in both, '-' only in a, '+' only in b.  Returns
 * the number of lines that differ. */
int print_unified_diff(FILE *out, const char *a_label, const char *a, const char *b_label,
                       const char *b);

#endif
