/* pipes.h: the cube unit's pipes (pipes.c), which run at once on an AIC. */
#ifndef PLD_PIPES_H
#define PLD_PIPES_H

/* MTE2 loads GM into L1, MTE1 moves L1 into L0A and L0B, M multiplies,
 * FIX drains L0C.  Each pipe runs its ops in issue order. */
enum pld__pipe { PLD__PIPE_MTE2, PLD__PIPE_MTE1, PLD__PIPE_M, PLD__PIPE_FIX, PLD__NPIPES };

/* One core's pipes: when each is free next, in model seconds (absolute,
 * as pld__now), and whether any is past the core's own clock. */
struct pld__pipes {
    double free[PLD__NPIPES];
    int ahead;
};

#endif /* PLD_PIPES_H */
