/*
 * thumb_cost.c — the ARMv7-M Thumb decoder and the TRMs' cycle figures
 * (thumb_cost.h). Encodings as in the ARMv7-M Architecture Reference
 * Manual (ARM DDI 0403), chapter A5 "The Thumb Instruction Set Encoding".
 *
 * The figures (DDI 0337I Table 3-1 for the M3; DDI 0439B Table 3-1 and
 * Table 7-1 for the M4), at zero wait states, each with where its range
 * comes from:
 *   data processing, MOVW/MOVT, shifts, extend, bit field, CLZ, REV, SSAT,
 *     MUL, IT, NOP, SEV, CLREX ........................................ 1
 *   MLA, MLS ......................................................... 2
 *   SMULL, UMULL: M3 3 to 5 (early termination, footnote a); M4 1
 *   SMLAL, UMLAL: M3 4 to 7; M4 1; the M4's DSP multiplies ........... 1
 *   SDIV, UDIV: 2 to 12 (early termination on the operands, footnote b)
 *   LDR, LDRH, LDRB, LDRSH, LDRSB, LDRT.., LDREX, STREX ................ 2,
 *     one after a load it can pipeline with (footnote c, 3.3.2); a
 *     PC-relative LDR "might add a cycle because of contention with the
 *     fetch unit" (3.3.2): [2, 3]
 *   STR, STRH, STRB: the table says 2; 3.3.2: "STR Rx,[Ry,#imm] is always
 *     one cycle" (the write buffer) — immediate offset 1 in [1, 2];
 *     register offset 2, one after a load
 *   LDRD, STRD: 1+N = 3 ("the two words are pipelined together")
 *   LDM, STM, PUSH, POP: 1+N (N registers, PC included)
 *   a PC write (B, BL, BX, BLX, POP/LDM with PC, LDR PC, MOV/ADD PC): +P
 *     (1 to 3) when it happens; a conditional branch not taken: 1
 *   LDR PC: 2+P by the table, "at least five" by 3.3.2: [3, 5]
 *   TBB, TBH: 2+P by the table, "at least six" (load 2, add 1, refill 3)
 *     by 3.3.2: [3, 6]
 *   IT: 1, "can be folded onto a preceding 16-bit Thumb instruction,
 *     enabling execution in zero cycles" (footnote e): [0, 1] when the
 *     instruction run just before it is 16-bit (decided at run time)
 *   CPSID, CPSIE, MRS, MSR: "1 or 2"
 *   DMB, DSB: 1+B, B "minimum zero" (the write buffer drains): [1, 2];
 *     ISB: 1+B, B at least a refill: [2, 4]
 *   WFI, WFE: 1+W (W, the wait, is not modelled: rtbench's images idle busy)
 *   SVC: the table gives "-"; the exception's entry (12) is charged as
 *     an exception: the instruction [0, 1]
 *   BKPT (semihosting under QEMU): 1
 *   M4 FPU (Table 7-1): VADD, VSUB, VMUL, VNMUL, VABS, VNEG, VCMP, VCVT,
 *     VMOV, VMRS, VMSR 1; VMLA, VMLS, VNMLA, VNMLS, VFMA, VFMS, VFNMA,
 *     VFNMS 3; VDIV, VSQRT 14; VLDR, VSTR 2; VLDM, VSTM, VPUSH, VPOP 1+N
 *     (N words); VMOV of two core registers 2
 * The estimate of a range the TRM gives no single figure for is its middle
 * (rounded down), except stores (the 3.3.2 figure) and IT (the table's 1).
 */
#include "thumb_cost.h"

#include <string.h>

#define R(n) ((uint16_t)(1u << (n)))
#define SP 13
#define LR 14
#define PC 15

static struct rtb_cost cost(int est, int lo, int hi)
{
    struct rtb_cost c = {(uint8_t)est, (uint8_t)lo, (uint8_t)hi};
    return c;
}

static struct rtb_cost fixed(int n)
{
    return cost(n, n, n);
}

static int popcount16(uint32_t v)
{
    return __builtin_popcount(v & 0xFFFFu);
}

static int32_t sext(uint32_t v, int bits)
{
    uint32_t m = 1u << (bits - 1);
    return (int32_t)((v ^ m) - m);
}

static void dp(struct rtb_insn *o, uint16_t dest)
{
    o->kind = K_DP;
    o->dest = dest;
    o->c = fixed(1);
}

static void load(struct rtb_insn *o, int rn, uint16_t extra, int rt)
{
    o->kind = K_LDR;
    o->mem = 1;
    o->addr_regs = R(rn) | extra;
    o->dest = R(rt);
    o->c = rn == PC ? cost(2, 2, 3) : fixed(2);
}

static void store(struct rtb_insn *o, int rn, int rm)
{
    o->mem = 1;
    if (rm >= 0) {
        o->kind = K_STR_REG;
        o->addr_regs = R(rn) | R(rm);
        o->c = fixed(2);
    } else {
        o->kind = K_STR_IMM;
        o->addr_regs = R(rn);
        o->c = cost(1, 1, 2);
    }
}

/* LDM/STM/PUSH/POP of `regs` based on `rn`; `load`: it loads. */
static void multi(struct rtb_insn *o, int rn, uint32_t regs, int is_load)
{
    int n = popcount16(regs);
    o->kind = K_LSM;
    o->mem = 1;
    o->addr_regs = R(rn);
    o->c = fixed(1 + n);
    if (is_load && (regs & R(PC)))
        o->branch = rn == SP ? BR_RETURN : BR_INDIRECT;
}

static void branch_to(struct rtb_insn *o, uint32_t target, int conditional)
{
    o->branch = BR_DIRECT;
    o->target = target;
    o->c = fixed(1);
    if (conditional)
        o->cond = C_BRANCH;
}

static void decode16(uint16_t hw, uint32_t addr, struct rtb_insn *o, int *it_count)
{
    int rd = hw & 7;
    switch (hw >> 12) {
    case 0x0:
    case 0x1: /* shift by immediate, add/subtract register or 3-bit immediate */
        dp(o, R(rd));
        return;
    case 0x2:
    case 0x3: /* MOV, CMP, ADD, SUB with an 8-bit immediate */
        dp(o, ((hw >> 11) & 3) == 1 ? 0 : R((hw >> 8) & 7));
        return;
    case 0x4:
        if ((hw & 0xFC00) == 0x4000) { /* data processing, registers (MUL: 1) */
            int op = (hw >> 6) & 0xF;
            dp(o, (op == 8 || op == 10 || op == 11) ? 0 : R(rd));
            return;
        }
        if ((hw & 0xFC00) == 0x4400) { /* special data processing, BX, BLX */
            int op = (hw >> 8) & 3, rdn = ((hw >> 4) & 8) | rd, rm = (hw >> 3) & 0xF;
            if (op == 3) {
                o->c = fixed(1);
                if (hw & 0x80) {
                    o->branch = BR_INDIRECT;
                    o->call = 1;
                } else {
                    o->branch = rm == LR ? BR_RETURN : BR_INDIRECT;
                }
            } else if (op == 1) {
                dp(o, 0); /* CMP */
            } else if (rdn == PC) {
                o->c = fixed(1);
                o->branch = (op == 2 && rm == LR) ? BR_RETURN : BR_INDIRECT;
            } else {
                dp(o, R(rdn));
            }
            return;
        }
        /* 01001: LDR (literal) */
        load(o, PC, 0, (hw >> 8) & 7);
        return;
    case 0x5: { /* load/store, register offset */
        int op = (hw >> 9) & 7, rm = (hw >> 6) & 7, rn = (hw >> 3) & 7;
        if (op <= 2)
            store(o, rn, rm);
        else
            load(o, rn, R(rm), rd);
        return;
    }
    case 0x6:
    case 0x7:
    case 0x8: /* LDR/STR(B,H) with a 5-bit immediate */
        if (hw & 0x0800)
            load(o, (hw >> 3) & 7, 0, rd);
        else
            store(o, (hw >> 3) & 7, -1);
        return;
    case 0x9: /* LDR/STR, SP-relative */
        if (hw & 0x0800)
            load(o, SP, 0, (hw >> 8) & 7);
        else
            store(o, SP, -1);
        return;
    case 0xA: /* ADR, ADD Rd, SP, #imm */
        dp(o, R((hw >> 8) & 7));
        return;
    case 0xB:
        if ((hw & 0xFF00) == 0xB000) { /* ADD/SUB SP, SP, #imm */
            dp(o, R(SP));
        } else if ((hw & 0xF500) == 0xB100) { /* CBZ, CBNZ */
            uint32_t imm = (((hw >> 9) & 1u) << 6) | (((hw >> 3) & 0x1Fu) << 1);
            branch_to(o, addr + 4 + imm, 1);
        } else if ((hw & 0xFF00) == 0xB200 || (hw & 0xFF00) == 0xBA00) { /* extend, reverse */
            dp(o, R(rd));
        } else if ((hw & 0xFE00) == 0xB400) { /* PUSH */
            multi(o, SP, (hw & 0xFFu) | ((hw & 0x100u) ? R(LR) : 0u), 0);
        } else if ((hw & 0xFE00) == 0xBC00) { /* POP */
            multi(o, SP, (hw & 0xFFu) | ((hw & 0x100u) ? R(PC) : 0u), 1);
        } else if ((hw & 0xFFE8) == 0xB660) { /* CPSIE, CPSID */
            o->c = cost(1, 1, 2);
        } else if ((hw & 0xFF00) == 0xBE00) { /* BKPT */
            o->c = fixed(1);
        } else if ((hw & 0xFF00) == 0xBF00) {
            o->c = fixed(1);
            if (hw & 0xF) { /* IT: 4 - (position of the mask's lowest 1) instructions */
                o->it = 1;
                if (it_count)
                    *it_count = ((hw >> 4) & 0xF) == 0xE ? 0 : 4 - __builtin_ctz(hw & 0xF);
            } /* else a hint: NOP, YIELD, WFE, WFI, SEV */
        } else {
            o->c = fixed(1);
            o->unknown = 1;
        }
        return;
    case 0xC: /* STM, LDM (Rn!) */
        multi(o, (hw >> 8) & 7, hw & 0xFF, (hw >> 11) & 1);
        return;
    case 0xD: {
        int cond = (hw >> 8) & 0xF;
        if (cond == 0xF) {
            o->svc = 1;
            o->c = cost(1, 0, 1);
        } else if (cond == 0xE) {
            o->c = fixed(1); /* UDF */
            o->unknown = 1;
        } else {
            branch_to(o, addr + 4 + (uint32_t)sext((hw & 0xFFu) << 1, 9), 1);
        }
        return;
    }
    default: /* 0xE: 11100, B */
        branch_to(o, addr + 4 + (uint32_t)sext((hw & 0x7FFu) << 1, 12), 0);
        return;
    }
}

/* The FPU's instructions (coprocessors 10 and 11): DDI 0439B Table 7-1. */
static void decode_vfp(uint16_t hw1, uint16_t hw2, struct rtb_insn *o)
{
    o->fp = FP_OP;
    if (((hw2 >> 9) & 7) != 5 || (hw1 & 0x1000) != 0 /* 1111 11xx: the unconditional space */) {
        o->c = fixed(1);
        o->unknown = 1;
        return;
    }
    if ((hw1 & 0x0200) == 0) { /* 1110 110x: extension register load/store */
        int p = (hw1 >> 8) & 1, w = (hw1 >> 5) & 1, l = (hw1 >> 4) & 1, rn = hw1 & 0xF;
        int words = hw2 & 0xFF;
        if ((hw1 & 0x01E0) == 0x0040) { /* VMOV between two core registers and S/D registers */
            o->c = fixed(2);
            if (l) {
                o->kind = K_DP;
                o->dest = R(hw2 >> 12) | R(hw1 & 0xF);
            }
            return;
        }
        o->kind = K_LSM;
        o->mem = 1;
        o->addr_regs = R(rn);
        if (p && !w) { /* VLDR, VSTR */
            o->c = fixed(2);
        } else { /* VLDM, VSTM, VPUSH, VPOP: 1 + N words */
            o->c = fixed(1 + words);
            o->fp = l ? FP_LOAD_MULTI : FP_STORE_MULTI;
        }
        return;
    }
    if ((hw1 & 0x0100) != 0) { /* 1110 1111: not the FPU */
        o->c = fixed(1);
        o->unknown = 1;
        return;
    }
    if (hw2 & 0x10) { /* VMOV core <-> S, VMRS, VMSR */
        o->c = fixed(1);
        if ((hw1 & 0x10) && (hw2 >> 12) != PC) { /* to a core register */
            o->kind = K_DP;
            o->dest = R(hw2 >> 12);
        }
        return;
    }
    int opc1 = (((hw1 >> 7) & 1) << 2) | ((hw1 >> 4) & 3), opc2 = hw1 & 0xF, opc3 = (hw2 >> 6) & 3;
    switch (opc1) {
    case 0: /* VMLA, VMLS */
    case 1: /* VNMLA, VNMLS */
    case 5: /* VFNMA, VFNMS */
    case 6: /* VFMA, VFMS */
        o->c = fixed(3);
        return;
    case 4: /* VDIV */
        o->c = fixed(14);
        return;
    case 7:
        o->c = (opc2 == 1 && opc3 == 3) ? fixed(14) /* VSQRT */ : fixed(1);
        return;
    default: /* VMUL, VNMUL, VADD, VSUB */
        o->c = fixed(1);
        return;
    }
}

static uint32_t bl_offset(uint16_t hw1, uint16_t hw2)
{
    uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
    uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
    uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FFu) << 12) | ((hw2 & 0x7FFu) << 1);
    return (uint32_t)sext(imm, 25);
}

static void decode32(uint16_t hw1, uint16_t hw2, uint32_t addr, enum rtb_cpu cpu,
                     struct rtb_insn *o)
{
    int op1 = (hw1 >> 11) & 3, op2 = (hw1 >> 4) & 0x7F;
    int rn = hw1 & 0xF, rt = hw2 >> 12, rd = (hw2 >> 8) & 0xF;
    if (op1 == 1) {
        if ((op2 & 0x64) == 0x00) { /* LDM, STM (PUSH.W, POP.W) */
            int mode = (hw1 >> 7) & 3;
            if (mode == 1 || mode == 2) {
                multi(o, rn, hw2, (hw1 >> 4) & 1);
            } else {
                o->c = fixed(1);
                o->unknown = 1;
            }
        } else if ((op2 & 0x64) == 0x04) { /* dual, exclusive, table branch */
            int a = (hw1 >> 7) & 3, b = (hw1 >> 4) & 3, op3 = (hw2 >> 4) & 0xF;
            if (a == 0 && b == 0) { /* STREX: "treated more like an LDR" */
                load(o, rn, 0, rd);
            } else if (a == 0 && b == 1) { /* LDREX */
                load(o, rn, 0, rt);
            } else if (a == 1 && b == 0) { /* STREXB, STREXH */
                load(o, rn, 0, hw2 & 0xF);
            } else if (a == 1 && b == 1 && (op3 == 0 || op3 == 1)) { /* TBB, TBH */
                o->branch = BR_INDIRECT;
                o->mem = 1;
                o->addr_regs = R(rn) | R(hw2 & 0xF);
                o->c = cost(2, 2, 3);
            } else if (a == 1 && b == 1) { /* LDREXB, LDREXH */
                load(o, rn, 0, rt);
            } else { /* LDRD, STRD: 1 + N, N = 2 */
                o->kind = K_LSM;
                o->mem = 1;
                o->addr_regs = R(rn);
                o->c = fixed(3);
            }
        } else if ((op2 & 0x60) == 0x20) { /* data processing, shifted register */
            dp(o, (rd == PC) ? 0 : R(rd));
        } else { /* coprocessor: the FPU */
            decode_vfp(hw1, hw2, o);
        }
        return;
    }
    if (op1 == 2) {
        if (!(hw2 & 0x8000)) { /* data processing, immediate */
            dp(o, (rd == PC) ? 0 : R(rd));
            return;
        }
        int op = (hw2 >> 12) & 7;
        if ((op & 5) == 0) {
            if (((hw1 >> 7) & 7) != 7) { /* B<cond>.W */
                uint32_t s = (hw1 >> 10) & 1, j1 = (hw2 >> 13) & 1, j2 = (hw2 >> 11) & 1;
                uint32_t imm = (s << 20) | (j2 << 19) | (j1 << 18) | ((hw1 & 0x3Fu) << 12) |
                               ((hw2 & 0x7FFu) << 1);
                branch_to(o, addr + 4 + (uint32_t)sext(imm, 21), 1);
                return;
            }
            int m = (hw1 >> 4) & 0x7F;
            if (m == 0x38 || m == 0x39) { /* MSR */
                o->c = cost(1, 1, 2);
            } else if (m == 0x3A) { /* hints */
                o->c = fixed(1);
            } else if (m == 0x3B) { /* CLREX, DSB, DMB, ISB */
                int c = (hw2 >> 4) & 0xF;
                o->c = c == 6 ? cost(3, 2, 4) : (c == 4 || c == 5) ? cost(1, 1, 2) : fixed(1);
            } else if (m == 0x3E || m == 0x3F) { /* MRS */
                o->kind = K_DP;
                o->dest = R(rd);
                o->c = cost(1, 1, 2);
            } else {
                o->c = fixed(1);
                o->unknown = 1;
            }
            return;
        }
        if ((op & 5) == 1) { /* B.W */
            branch_to(o, addr + 4 + bl_offset(hw1, hw2), 0);
            return;
        }
        if ((op & 5) == 5) { /* BL */
            branch_to(o, addr + 4 + bl_offset(hw1, hw2), 0);
            o->call = 1;
            return;
        }
        o->c = fixed(1); /* BLX (immediate): ARM state, not on M-profile */
        o->unknown = 1;
        return;
    }
    /* op1 == 3 */
    if ((op2 & 0x71) == 0x00) { /* store single */
        int reg = (hw1 & 0x80) == 0 && (hw2 & 0x0FC0) == 0;
        store(o, rn, reg ? (hw2 & 0xF) : -1);
        return;
    }
    if ((op2 & 0x67) == 0x01 || (op2 & 0x67) == 0x03 || (op2 & 0x67) == 0x05) { /* load single */
        int word = ((hw1 >> 5) & 3) == 2;
        int reg = rn != PC && (hw1 & 0x80) == 0 && (hw2 & 0x0FC0) == 0;
        if (rt == PC) {
            if (word) { /* LDR PC: a blocking load, then the refill */
                o->mem = 1;
                o->addr_regs = R(rn) | (reg ? R(hw2 & 0xF) : 0);
                o->branch = rn == SP ? BR_RETURN : BR_INDIRECT;
                o->c = fixed(2);
            } else { /* PLD, PLI: hints */
                o->c = fixed(1);
            }
            return;
        }
        load(o, rn, reg ? R(hw2 & 0xF) : 0, rt);
        return;
    }
    if ((op2 & 0x70) == 0x20) { /* data processing, register (and the M4's SIMD) */
        dp(o, R(rd));
        return;
    }
    if ((op2 & 0x78) == 0x30) { /* multiply, multiply-accumulate */
        int m = (hw1 >> 4) & 7, op = (hw2 >> 4) & 3;
        dp(o, R(rd));
        if (m == 0 && !(op == 0 && rt == PC)) /* MLA, MLS */
            o->c = fixed(2);
        return;
    }
    if ((op2 & 0x78) == 0x38) { /* long multiply, divide */
        int m = (hw1 >> 4) & 7, op = (hw2 >> 4) & 0xF;
        dp(o, R(rt) | R(rd));
        if ((m == 1 || m == 3) && op == 0xF) { /* SDIV, UDIV */
            o->dest = R(rd);
            o->c = cost(7, 2, 12);
        } else if (cpu == RTB_M3 && op == 0 && (m == 0 || m == 2)) { /* SMULL, UMULL */
            o->c = cost(4, 3, 5);
        } else if (cpu == RTB_M3 && op == 0 && (m == 4 || m == 6)) { /* SMLAL, UMLAL */
            o->c = cost(5, 4, 7);
        } /* the M4: 1 */
        return;
    }
    if (op2 & 0x40) {
        decode_vfp(hw1, hw2, o);
        return;
    }
    o->c = fixed(1);
    o->unknown = 1;
}

int rtb_decode(const uint8_t *b, uint32_t addr, enum rtb_cpu cpu, int in_it, struct rtb_insn *out,
               int *it_count)
{
    uint16_t hw1 = (uint16_t)(b[0] | (b[1] << 8));
    memset(out, 0, sizeof *out);
    out->addr = addr;
    out->size = (uint8_t)rtb_insn_size(hw1);
    if (it_count)
        *it_count = 0;
    if (out->size == 2)
        decode16(hw1, addr, out, it_count);
    else
        decode32(hw1, (uint16_t)(b[2] | (b[3] << 8)), addr, cpu, out);
    if (in_it && !out->it)
        out->cond = C_IT; /* B<cond> cannot sit in an IT block: C_IT covers every branch there */
    return out->size;
}
