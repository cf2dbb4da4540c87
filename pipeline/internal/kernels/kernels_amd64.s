#include "textflag.h"

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax, edx uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-8
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	MOVL DX, edx+4(FP)
	RET

// DOTSUM(ya, yb, xa, xb) leaves in the low lane of xa the sum of the 16
// lanes of the accumulators ya and yb (xa and xb their low halves), in
// the order every dot product here uses.
#define DOTSUM(ya, yb, xa, xb) \
	VADDPS yb, ya, ya; \
	VEXTRACTF128 $1, ya, xb; \
	VADDPS xb, xa, xa; \
	VHADDPS xa, xa, xa; \
	VHADDPS xa, xa, xa

// func dotAVX2(a, b *float32, n int) float32
TEXT ·dotAVX2(SB), NOSPLIT, $0-28
	MOVQ a+0(FP), SI
	MOVQ b+8(FP), DI
	MOVQ n+16(FP), CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	XORQ AX, AX
dot16:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $16
	JL   dot8
	VMOVUPS (SI)(AX*4), Y2
	VMOVUPS 32(SI)(AX*4), Y3
	VFMADD231PS (DI)(AX*4), Y2, Y0
	VFMADD231PS 32(DI)(AX*4), Y3, Y1
	ADDQ $16, AX
	JMP  dot16
dot8:
	CMPQ DX, $8
	JL   dotdone
	VMOVUPS (SI)(AX*4), Y2
	VFMADD231PS (DI)(AX*4), Y2, Y0
dotdone:
	DOTSUM(Y0, Y1, X0, X1)
	VZEROUPPER
	MOVSS X0, ret+24(FP)
	RET

// func axpyAVX2(dst *float32, alpha float32, x *float32, n int)
TEXT ·axpyAVX2(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	VBROADCASTSS alpha+8(FP), Y0
	MOVQ x+16(FP), SI
	MOVQ n+24(FP), CX
	XORQ AX, AX
axpyloop:
	CMPQ AX, CX
	JGE  axpydone
	VMOVUPS (DI)(AX*4), Y1
	VFMADD231PS (SI)(AX*4), Y0, Y1
	VMOVUPS Y1, (DI)(AX*4)
	ADDQ $8, AX
	JMP  axpyloop
axpydone:
	VZEROUPPER
	RET

// func adamAVX2(x, grad, m, v *float32, n int, a, decay, b1, ob1, b2, ob2, eps float32)
TEXT ·adamAVX2(SB), NOSPLIT, $0-68
	MOVQ x+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	VBROADCASTSS a+40(FP), Y10
	VBROADCASTSS decay+44(FP), Y11
	VBROADCASTSS b1+48(FP), Y12
	VBROADCASTSS ob1+52(FP), Y13
	VBROADCASTSS b2+56(FP), Y14
	VBROADCASTSS ob2+60(FP), Y15
	VBROADCASTSS eps+64(FP), Y9
	XORQ AX, AX
adamloop:
	CMPQ AX, CX
	JGE  adamdone
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS (SI)(AX*4), Y1
	VFMADD231PS Y0, Y11, Y1
	VMULPS (R8)(AX*4), Y12, Y2
	VFMADD231PS Y1, Y13, Y2
	VMOVUPS Y2, (R8)(AX*4)
	VMULPS Y1, Y1, Y3
	VMULPS (R9)(AX*4), Y14, Y4
	VFMADD231PS Y3, Y15, Y4
	VMOVUPS Y4, (R9)(AX*4)
	VSQRTPS Y4, Y5
	VADDPS Y9, Y5, Y5
	VMULPS Y2, Y10, Y6
	VDIVPS Y5, Y6, Y6
	VSUBPS Y6, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP  adamloop
adamdone:
	VZEROUPPER
	RET

// func rmsAVX2(x, grad, v *float32, n int, a, decay, b2, ob2, eps float32)
TEXT ·rmsAVX2(SB), NOSPLIT, $0-52
	MOVQ x+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ v+16(FP), R9
	MOVQ n+24(FP), CX
	VBROADCASTSS a+32(FP), Y10
	VBROADCASTSS decay+36(FP), Y11
	VBROADCASTSS b2+40(FP), Y14
	VBROADCASTSS ob2+44(FP), Y15
	VBROADCASTSS eps+48(FP), Y9
	XORQ AX, AX
rmsloop:
	CMPQ AX, CX
	JGE  rmsdone
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS (SI)(AX*4), Y1
	VFMADD231PS Y0, Y11, Y1
	VMULPS Y1, Y1, Y3
	VMULPS (R9)(AX*4), Y14, Y4
	VFMADD231PS Y3, Y15, Y4
	VMOVUPS Y4, (R9)(AX*4)
	VSQRTPS Y4, Y5
	VADDPS Y9, Y5, Y5
	VMULPS Y1, Y10, Y6
	VDIVPS Y5, Y6, Y6
	VSUBPS Y6, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP  rmsloop
rmsdone:
	VZEROUPPER
	RET

// func prefetchAsm(p *float32, n int)
TEXT ·prefetchAsm(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), SI
	MOVQ n+8(FP), CX
	SHLQ $2, CX
	ADDQ SI, CX
pf:
	PREFETCHT0 (SI)
	ADDQ $64, SI
	CMPQ SI, CX
	JL   pf
	RET

// Constants of expAVX2: those of math.Exp's amd64 assembly
// (exp_amd64.s, after Shibata's SLEEF), each broadcast to 4 lanes.
DATA expc<>+0(SB)/8, $1.4426950408889634073599246810018920   // log2(e)
DATA expc<>+8(SB)/8, $0.69314718055966295651160180568695068359375 // upper half of ln 2
DATA expc<>+16(SB)/8, $0.28235290563031577122588448175013436025525412068e-12 // lower half
DATA expc<>+24(SB)/8, $0.0625
DATA expc<>+32(SB)/8, $2.4801587301587301587e-5
DATA expc<>+40(SB)/8, $1.9841269841269841270e-4
DATA expc<>+48(SB)/8, $1.3888888888888888889e-3
DATA expc<>+56(SB)/8, $8.3333333333333333333e-3
DATA expc<>+64(SB)/8, $4.1666666666666666667e-2
DATA expc<>+72(SB)/8, $1.6666666666666666667e-1
DATA expc<>+80(SB)/8, $0.5
DATA expc<>+88(SB)/8, $1.0
DATA expc<>+96(SB)/8, $2.0
GLOBL expc<>(SB), RODATA, $104

// The exponent bias, 4 x int64.
DATA expbias<>+0(SB)/8, $0x3FF
DATA expbias<>+8(SB)/8, $0x3FF
DATA expbias<>+16(SB)/8, $0x3FF
DATA expbias<>+24(SB)/8, $0x3FF
GLOBL expbias<>(SB), RODATA, $32

// func expAVX2(dst, x *float64, n int)
//
// dst[i] = math.Exp(x[i]) for n elements, n a multiple of 4, every x[i]
// in [-700, 700]: the steps of math.Exp's FMA path (reduction by ln 2 in
// two parts, a Taylor series of e^(r/16) and four squarings as
// (y+2)·y), the same operations in the same order, 4 lanes at a time.
TEXT ·expAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD expc<>+0(SB), Y4
	VBROADCASTSD expc<>+8(SB), Y5
	VBROADCASTSD expc<>+16(SB), Y6
	VBROADCASTSD expc<>+24(SB), Y7
	VBROADCASTSD expc<>+40(SB), Y8
	VBROADCASTSD expc<>+48(SB), Y9
	VBROADCASTSD expc<>+56(SB), Y10
	VBROADCASTSD expc<>+64(SB), Y11
	VBROADCASTSD expc<>+72(SB), Y12
	VBROADCASTSD expc<>+80(SB), Y13
	VBROADCASTSD expc<>+88(SB), Y14
	VBROADCASTSD expc<>+96(SB), Y15

exploop:
	VMOVUPD (SI), Y0
	VMULPD  Y4, Y0, Y1        // x·log2(e)
	VCVTPD2DQY Y1, X2         // k, rounded to nearest
	VCVTDQ2PD X2, Y1
	VFNMADD231PD Y5, Y1, Y0   // r = x − k·ln2 (upper), fused
	VFNMADD231PD Y6, Y1, Y0   // − k·ln2 (lower), fused
	VMULPD  Y7, Y0, Y0        // r/16
	VBROADCASTSD expc<>+32(SB), Y1
	VFMADD213PD Y8, Y0, Y1
	VFMADD213PD Y9, Y0, Y1
	VFMADD213PD Y10, Y0, Y1
	VFMADD213PD Y11, Y0, Y1
	VFMADD213PD Y12, Y0, Y1
	VFMADD213PD Y13, Y0, Y1
	VFMADD213PD Y14, Y0, Y1
	VMULPD  Y1, Y0, Y0
	VADDPD  Y15, Y0, Y1
	VMULPD  Y1, Y0, Y0
	VADDPD  Y15, Y0, Y1
	VMULPD  Y1, Y0, Y0
	VADDPD  Y15, Y0, Y1
	VMULPD  Y1, Y0, Y0
	VADDPD  Y15, Y0, Y1
	VFMADD213PD Y14, Y1, Y0   // e^r − 1 → e^r
	VPMOVSXDQ X2, Y2          // 2^k
	VPADDQ  expbias<>(SB), Y2, Y2
	VPSLLQ  $52, Y2, Y2
	VMULPD  Y2, Y0, Y0
	VMOVUPD Y0, (DI)
	ADDQ    $32, SI
	ADDQ    $32, DI
	SUBQ    $4, CX
	JNZ     exploop
	VZEROUPPER
	RET

// func dot4AVX2(a, b0, b1, b2, b3 *float32, n int, out *float32)
// out[k] = Σ a_i·bk_i for k = 0..3, each summed exactly as dotAVX2 sums
// one (two accumulators over 16-element steps, the same reduction), with
// each 8-element piece of a loaded once for the four rows.
TEXT ·dot4AVX2(SB), NOSPLIT, $0-56
	MOVQ a+0(FP), SI
	MOVQ b0+8(FP), R8
	MOVQ b1+16(FP), R9
	MOVQ b2+24(FP), R10
	MOVQ b3+32(FP), R11
	MOVQ n+40(FP), CX
	MOVQ out+48(FP), DI
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	XORQ AX, AX
dot4loop:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $16
	JL   dot4tail
	VMOVUPS (SI)(AX*4), Y8
	VMOVUPS 32(SI)(AX*4), Y9
	VFMADD231PS (R8)(AX*4), Y8, Y0
	VFMADD231PS 32(R8)(AX*4), Y9, Y1
	VFMADD231PS (R9)(AX*4), Y8, Y2
	VFMADD231PS 32(R9)(AX*4), Y9, Y3
	VFMADD231PS (R10)(AX*4), Y8, Y4
	VFMADD231PS 32(R10)(AX*4), Y9, Y5
	VFMADD231PS (R11)(AX*4), Y8, Y6
	VFMADD231PS 32(R11)(AX*4), Y9, Y7
	ADDQ $16, AX
	JMP  dot4loop
dot4tail:
	CMPQ DX, $8
	JL   dot4done
	VMOVUPS (SI)(AX*4), Y8
	VFMADD231PS (R8)(AX*4), Y8, Y0
	VFMADD231PS (R9)(AX*4), Y8, Y2
	VFMADD231PS (R10)(AX*4), Y8, Y4
	VFMADD231PS (R11)(AX*4), Y8, Y6
dot4done:
	DOTSUM(Y0, Y1, X0, X1)
	MOVSS X0, 0(DI)
	DOTSUM(Y2, Y3, X2, X3)
	MOVSS X2, 4(DI)
	DOTSUM(Y4, Y5, X4, X5)
	MOVSS X4, 8(DI)
	DOTSUM(Y6, Y7, X6, X7)
	MOVSS X6, 12(DI)
	VZEROUPPER
	RET

// func axpyNAVX2(dst, a *float32, x *[]float32, terms, n int)
// dst += a[t]·x[t] for t = 0..terms-1 in that order, over n elements:
// the fused multiply-adds of one axpyAVX2 call per term, with dst kept
// in registers 32 (then 8) elements at a time while every term passes.
TEXT ·axpyNAVX2(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ a+8(FP), BX
	MOVQ x+16(FP), SI
	MOVQ terms+24(FP), R9
	MOVQ n+32(FP), CX
	XORQ AX, AX
axpyN32:
	MOVQ CX, DX
	SUBQ AX, DX
	CMPQ DX, $32
	JL   axpyN8
	VMOVUPS (DI)(AX*4), Y0
	VMOVUPS 32(DI)(AX*4), Y1
	VMOVUPS 64(DI)(AX*4), Y2
	VMOVUPS 96(DI)(AX*4), Y3
	XORQ DX, DX
	MOVQ SI, R10
axpyN32term:
	CMPQ DX, R9
	JGE  axpyN32store
	MOVQ (R10), R11
	VBROADCASTSS (BX)(DX*4), Y4
	VFMADD231PS (R11)(AX*4), Y4, Y0
	VFMADD231PS 32(R11)(AX*4), Y4, Y1
	VFMADD231PS 64(R11)(AX*4), Y4, Y2
	VFMADD231PS 96(R11)(AX*4), Y4, Y3
	ADDQ $24, R10
	INCQ DX
	JMP  axpyN32term
axpyN32store:
	VMOVUPS Y0, (DI)(AX*4)
	VMOVUPS Y1, 32(DI)(AX*4)
	VMOVUPS Y2, 64(DI)(AX*4)
	VMOVUPS Y3, 96(DI)(AX*4)
	ADDQ $32, AX
	JMP  axpyN32
axpyN8:
	CMPQ AX, CX
	JGE  axpyNdone
	VMOVUPS (DI)(AX*4), Y0
	XORQ DX, DX
	MOVQ SI, R10
axpyN8term:
	CMPQ DX, R9
	JGE  axpyN8store
	MOVQ (R10), R11
	VBROADCASTSS (BX)(DX*4), Y4
	VFMADD231PS (R11)(AX*4), Y4, Y0
	ADDQ $24, R10
	INCQ DX
	JMP  axpyN8term
axpyN8store:
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ $8, AX
	JMP  axpyN8
axpyNdone:
	VZEROUPPER
	RET

// func rowSquaresSSE(x, grad *float32, n int, decay float32, out *float32)
// out[k] = Σ_{j ≡ k mod 4} (g_j + decay·x_j)², each product and sum
// rounded as rowRMSGo's scalar float32 steps (no fused multiply-add).
TEXT ·rowSquaresSSE(SB), NOSPLIT, $0-40
	MOVQ   x+0(FP), SI
	MOVQ   grad+8(FP), DI
	MOVQ   n+16(FP), CX
	MOVSS  decay+24(FP), X0
	SHUFPS $0, X0, X0
	MOVQ   out+32(FP), DX
	XORPS  X1, X1
	XORQ   AX, AX
sqloop:
	CMPQ   AX, CX
	JGE    sqdone
	MOVUPS (SI)(AX*4), X2
	MULPS  X0, X2
	MOVUPS (DI)(AX*4), X3
	ADDPS  X3, X2
	MULPS  X2, X2
	ADDPS  X2, X1
	ADDQ   $4, AX
	JMP    sqloop
sqdone:
	MOVUPS X1, (DX)
	RET

// func rowStepAVX(x, grad *float32, n int, step, decay float32)
// x_j -= step·(g_j + decay·x_j) over n elements, n a multiple of 8, each
// product and sum rounded as in rowRMSGo (no fused multiply-add).
TEXT ·rowStepAVX(SB), NOSPLIT, $0-32
	MOVQ         x+0(FP), DI
	MOVQ         grad+8(FP), SI
	MOVQ         n+16(FP), CX
	VBROADCASTSS step+24(FP), Y10
	VBROADCASTSS decay+28(FP), Y11
	XORQ         AX, AX
steploop:
	CMPQ    AX, CX
	JGE     stepdone
	VMOVUPS (DI)(AX*4), Y0
	VMULPS  Y0, Y11, Y1
	VADDPS  (SI)(AX*4), Y1, Y1
	VMULPS  Y1, Y10, Y1
	VSUBPS  Y1, Y0, Y0
	VMOVUPS Y0, (DI)(AX*4)
	ADDQ    $8, AX
	JMP     steploop
stepdone:
	VZEROUPPER
	RET
