/*
 * rijndael256_sbox.inc.h: the Rijndael S-box circuit without the affine constant (rijndael256.h
 * says which, and the layout), for one word type, a template include (bs_common.h). Its includer
 * defines BS_W (any unsigned type, or a vector of them) and BS_R256_SBOX (the function's name),
 * and #undefs both after: BS_R256_SBOX(out, ostride, in, istride) reads bit j of the input from
 * in[j * istride] and writes bit j of the output to out[j * ostride] (in place is fine).
 * No include guard, on purpose.
 */
BS_FN void BS_R256_SBOX(BS_W *out, size_t ostride, const BS_W *in, size_t istride)
{
    const BS_W U0 = in[7 * istride], U1 = in[6 * istride], U2 = in[5 * istride];
    const BS_W U3 = in[4 * istride], U4 = in[3 * istride], U5 = in[2 * istride];
    const BS_W U6 = in[istride], U7 = in[0];
    /* top linear layer */
    const BS_W T1 = U0 ^ U3, T2 = U0 ^ U5, T3 = U0 ^ U6, T4 = U3 ^ U5, T5 = U4 ^ U6;
    const BS_W T6 = T1 ^ T5, T7 = U1 ^ U2, T8 = U7 ^ T6, T9 = U7 ^ T7, T10 = T6 ^ T7;
    const BS_W T11 = U1 ^ U5, T12 = U2 ^ U5, T13 = T3 ^ T4, T14 = T6 ^ T11;
    const BS_W T15 = T5 ^ T11, T16 = T5 ^ T12, T17 = T9 ^ T16, T18 = U3 ^ U7;
    const BS_W T19 = T7 ^ T18, T20 = T1 ^ T19, T21 = U6 ^ U7, T22 = T7 ^ T21;
    const BS_W T23 = T2 ^ T22, T24 = T2 ^ T10, T25 = T20 ^ T17, T26 = T3 ^ T16;
    const BS_W T27 = T1 ^ T12;
    /* shared nonlinear middle: inversion in GF(2^4)^2 */
    const BS_W M1 = T13 & T6, M2 = T23 & T8, M3 = T14 ^ M1, M4 = T19 & U7, M5 = M4 ^ M1;
    const BS_W M6 = T3 & T16, M7 = T22 & T9, M8 = T26 ^ M6, M9 = T20 & T17, M10 = M9 ^ M6;
    const BS_W M11 = T1 & T15, M12 = T4 & T27, M13 = M12 ^ M11, M14 = T2 & T10;
    const BS_W M15 = M14 ^ M11, M16 = M3 ^ M2, M17 = M5 ^ T24, M18 = M8 ^ M7;
    const BS_W M19 = M10 ^ M15, M20 = M16 ^ M13, M21 = M17 ^ M15, M22 = M18 ^ M13;
    const BS_W M23 = M19 ^ T25, M24 = M22 ^ M23, M25 = M22 & M20, M26 = M21 ^ M25;
    const BS_W M27 = M20 ^ M21, M28 = M23 ^ M25, M29 = M28 & M27, M30 = M26 & M24;
    const BS_W M31 = M20 & M23, M32 = M27 & M31, M33 = M27 ^ M25, M34 = M21 & M22;
    const BS_W M35 = M24 & M34, M36 = M24 ^ M25, M37 = M21 ^ M29, M38 = M32 ^ M33;
    const BS_W M39 = M23 ^ M30, M40 = M35 ^ M36, M41 = M38 ^ M40, M42 = M37 ^ M39;
    const BS_W M43 = M37 ^ M38, M44 = M39 ^ M40, M45 = M42 ^ M41;
    const BS_W M46 = M44 & T6, M47 = M40 & T8, M48 = M39 & U7, M49 = M43 & T16;
    const BS_W M50 = M38 & T9, M51 = M37 & T17, M52 = M42 & T15, M53 = M45 & T27;
    const BS_W M54 = M41 & T10, M55 = M44 & T13, M56 = M40 & T23, M57 = M39 & T19;
    const BS_W M58 = M43 & T3, M59 = M38 & T22, M60 = M37 & T20, M61 = M42 & T1;
    const BS_W M62 = M45 & T4, M63 = M41 & T2;
    /* bottom linear layer */
    const BS_W L0 = M61 ^ M62, L1 = M50 ^ M56, L2 = M46 ^ M48, L3 = M47 ^ M55;
    const BS_W L4 = M54 ^ M58, L5 = M49 ^ M61, L6 = M62 ^ L5, L7 = M46 ^ L3;
    const BS_W L8 = M51 ^ M59, L9 = M52 ^ M53, L10 = M53 ^ L4, L11 = M60 ^ L2;
    const BS_W L12 = M48 ^ M51, L13 = M50 ^ L0, L14 = M52 ^ M61, L15 = M55 ^ L1;
    const BS_W L16 = M56 ^ L0, L17 = M57 ^ L1, L18 = M58 ^ L8, L19 = M63 ^ L4;
    const BS_W L20 = L0 ^ L1, L21 = L1 ^ L7, L22 = L3 ^ L12, L23 = L18 ^ L2;
    const BS_W L24 = L15 ^ L9, L25 = L6 ^ L10, L26 = L7 ^ L9, L27 = L8 ^ L10;
    const BS_W L28 = L11 ^ L14, L29 = L11 ^ L17;
    /* S0..S7 = bits 7..0; the paper's XNORs on S1, S2, S6, S7 are the constant 0x63 */
    out[7 * ostride] = L6 ^ L24;
    out[6 * ostride] = L16 ^ L26;
    out[5 * ostride] = L19 ^ L28;
    out[4 * ostride] = L6 ^ L21;
    out[3 * ostride] = L20 ^ L22;
    out[2 * ostride] = L25 ^ L29;
    out[1 * ostride] = L13 ^ L27;
    out[0 * ostride] = L6 ^ L23;
}
