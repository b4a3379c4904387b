/*
 * thumb_cost.h — one ARMv7-M Thumb instruction, decoded from its opcode
 * bytes, and what it costs by the processor's Technical Reference Manual
 * at zero wait states: the Cortex-M3's (r2p1, ARM DDI 0337I, Table 3-1
 * "Cortex-M3 instruction set summary" and section 3.3.2 "Load/store
 * timings") or the Cortex-M4's (ARM DDI 0439B, Table 3-1, section 3.3.2,
 * and Table 7-1, the FPU's instructions).
 *
 * A cost is a range [lo, hi] with the model's estimate `est` inside it.
 * What the decoder knows from the opcode alone is here (the table's
 * figure, the registers an address is made from, what a branch may do);
 * what depends on the instructions around it or on what ran (the
 * pipelining of neighbouring loads, the address-generation stall, a
 * branch taken or not, an IT-skipped instruction, a PC refill) is applied
 * at run time by rtb_cycles.c from the fields below.
 */
#ifndef RTB_THUMB_COST_H
#define RTB_THUMB_COST_H

#include <stdint.h>

enum rtb_cpu { RTB_M3 = 3, RTB_M4 = 4 };

/* The TRM's P, the cycles of a pipeline refill after a PC write: "1 to 3
 * depending on the alignment and width of the target instruction, and
 * whether the processor manages to speculate the address early". The
 * estimate takes the middle. */
#define RTB_P_EST 2
#define RTB_P_LO 1
#define RTB_P_HI 3

struct rtb_cost {
    uint8_t est, lo, hi;
};

/* How an instruction takes part in the load/store pipelining rules
 * (DDI 0337I 3.3.2). */
enum rtb_kind {
    K_OTHER = 0, /* none of the below: branches, hints, barriers, status */
    K_DP,        /* data processing writing `dest`: a load or store whose
                    address comes from it next stalls one cycle */
    K_LDR,       /* a single load, LDREX or STREX: after a K_LDR whose
                    destination is not in its address, one cycle less */
    K_STR_REG,   /* a single store with a register offset: pipelines after
                    a K_LDR like a load; nothing pipelines after a store */
    K_STR_IMM,   /* a single store with an immediate offset: "always one
                    cycle" (the write buffer takes the data phase) */
    K_LSM,       /* LDM, STM, PUSH, POP, LDRD, STRD, VLDM, VSTM, VLDR, VSTR:
                    never pipelined with their neighbours */
};

enum rtb_branch {
    BR_NONE = 0,
    BR_DIRECT,   /* B, B<cond>, CBZ, CBNZ, BL: the target is in the opcode */
    BR_INDIRECT, /* BX Rm (m != LR), BLX Rm, MOV/ADD PC, LDR PC (not from
                    SP), LDM without SP writing PC, TBB, TBH */
    BR_RETURN,   /* BX LR, POP {..., PC}, LDR PC, [SP], LDM SP!, {..., PC}:
                    a function's return, or an exception's */
};

enum rtb_cond {
    C_ALWAYS = 0,
    C_BRANCH, /* B<cond>, CBZ, CBNZ: taken or not, the next block says */
    C_IT,     /* inside an IT block: a load or store that is skipped fires
                 no memory callback; anything else is undecidable */
};

enum rtb_fp {
    FP_NONE = 0,
    FP_OP,       /* an FP instruction (the M4F's FPU) */
    FP_STORE_MULTI, /* VSTM/VPUSH: a handler saving the task's S16-S31 */
    FP_LOAD_MULTI,  /* VLDM/VPOP: a handler restoring them */
};

struct rtb_insn {
    uint32_t addr;
    uint32_t target;    /* BR_DIRECT: where it goes when taken */
    uint16_t addr_regs; /* registers an access's address is computed from */
    uint16_t dest;      /* K_LDR: the load's destination; K_DP: registers written */
    struct rtb_cost c;  /* executed; a branch without its refill (+P when taken) */
    uint8_t size;       /* 2 or 4 bytes, from the first halfword */
    uint8_t kind;       /* enum rtb_kind */
    uint8_t branch;     /* enum rtb_branch */
    uint8_t cond;       /* enum rtb_cond */
    uint8_t call;       /* BL, BLX: pushes a return address */
    uint8_t mem;        /* accesses data memory */
    uint8_t fp;         /* enum rtb_fp */
    uint8_t it;         /* an IT instruction (its folding is decided by the caller) */
    uint8_t svc;        /* SVC */
    uint8_t unknown;    /* no encoding the decoder knows: priced 1 */
    /* Set by the plugin from the image's map, not by the decoder: */
    uint8_t cls;        /* owner: 0 kernel, 1 api, 2 ours */
    uint8_t stamp;      /* 0 none, 1 opening load, 2 closing load, 3 the anchor,
                           4 the stamp log's mark (a metric's block written) */
    uint8_t head, tail; /* a stamp's instructions before and after its load */
};

/* Decode the instruction whose bytes are at `b` (at least 2; 4 when the
 * first halfword says 32 bits) at address `addr`, for `cpu`. Returns its
 * size in bytes. `in_it`: it lies inside an IT block with a real condition;
 * `it_count` (out, may be NULL): for an IT instruction, how many
 * instructions it makes conditional (0 for IT AL), else 0. */
int rtb_decode(const uint8_t *b, uint32_t addr, enum rtb_cpu cpu, int in_it, struct rtb_insn *out,
               int *it_count);

/* The size of the instruction whose first halfword is `hw1`. */
static inline int rtb_insn_size(uint16_t hw1)
{
    return (hw1 >> 11) >= 0x1D ? 4 : 2;
}

#endif
