/* line_diff.c: the longest common subsequence of two line lists, printed as
 * a unified diff.  The texts are short (a few hundred lines), so the plain
 * O(n*m) table is fine. */
#include "line_diff.h"

#include <stdlib.h>
#include <string.h>

static char **split(const char *text, int *n)
{
    int cap = 16;
    char **v = malloc((size_t)cap * sizeof *v);
    *n = 0;
    for (const char *p = text; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (*n == cap)
            v = realloc(v, (size_t)(cap *= 2) * sizeof *v);
        v[(*n)++] = strndup(p, len);
        p = nl ? nl + 1 : p + len;
    }
    return v;
}

int print_unified_diff(FILE *out, const char *a_label, const char *a, const char *b_label,
                       const char *b)
{
    int na, nb, changed = 0;
    char **la = split(a, &na), **lb = split(b, &nb);
    /* lcs[i][j]: length of the LCS of la[i..] and lb[j..] */
    int *lcs = calloc((size_t)(na + 1) * (size_t)(nb + 1), sizeof *lcs);
#define LCS(i, j) lcs[(size_t)(i) * (size_t)(nb + 1) + (size_t)(j)]
    for (int i = na - 1; i >= 0; i--)
        for (int j = nb - 1; j >= 0; j--)
            LCS(i, j) = strcmp(la[i], lb[j]) == 0        ? LCS(i + 1, j + 1) + 1
                        : LCS(i + 1, j) >= LCS(i, j + 1) ? LCS(i + 1, j)
                                                         : LCS(i, j + 1);
    fprintf(out, "--- %s\n+++ %s\n@@ -1,%d +1,%d @@\n", a_label, b_label, na, nb);
    int i = 0, j = 0;
    while (i < na || j < nb) {
        if (i < na && j < nb && strcmp(la[i], lb[j]) == 0) {
            fprintf(out, " %s\n", la[i++]);
            j++;
        } else if (j < nb && (i == na || LCS(i, j + 1) >= LCS(i + 1, j))) {
            fprintf(out, "+%s\n", lb[j++]);
            changed++;
        } else {
            fprintf(out, "-%s\n", la[i++]);
            changed++;
        }
    }
#undef LCS
    for (int k = 0; k < na; k++)
        free(la[k]);
    for (int k = 0; k < nb; k++)
        free(lb[k]);
    free(la);
    free(lb);
    free(lcs);
    return changed;
}
