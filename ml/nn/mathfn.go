package nn

import "math"

// Deterministic exp and tanh (docs/ml.md §2.4).
//
// The standard library's math.Exp is not bit-reproducible across machines:
// on amd64 it runs an assembly routine with a different instruction path
// when the CPU has FMA, and elsewhere its Go code may be compiled with fused
// multiply-adds (arm64, ppc64, s390x, riscv64, amd64 v3). The values differ
// in the last bit, which is enough to make two trainings diverge. DetExp and
// DetTanh below are the algorithms of the standard library's portable Go code
// (FreeBSD's e_exp.c and the Cephes tanh, as adapted by the Go authors,
// BSD licence) with every product that feeds an addition written
// float64(a*b) so that no compiler may fuse it: the same bits on every
// machine. Accuracy: that of the originals (about 1 ulp). They are named
// DetExp and DetTanh; the layers use them for σ and tanh.

// DetExp returns e^x, bit-identical on every machine.
func DetExp(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28) // 2^−28

		p1 = 1.66666666666666657415e-01
		p2 = -2.77777777770155933842e-03
		p3 = 6.61375632143793436117e-05
		p4 = -1.65339022054652515390e-06
		p5 = 4.13813679705723846039e-08
	)
	switch {
	case x != x: // NaN
		return x
	case x > overflow: // includes +Inf
		return math.Inf(1)
	case x < underflow: // includes −Inf
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	// argument reduction x = k·ln2 + r, r = hi − lo, |r| ≤ ln2/2
	// k = round-half-away(log2e·x): float64(log2e·x) ∓ 0.5 truncated, with
	// the sign of x taken without a branch (x is rarely predictable: an
	// LSTM's gate inputs change sign from one call to the next; adding
	// −0.5 is subtracting 0.5, so the bits are those of the two-case form;
	// x = 0 returned above)
	k := int(float64(log2e*x) + math.Copysign(0.5, x))
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(float64(k) * ln2Lo)
	r := hi - lo
	t := float64(r * r)
	// c = r − t·(P1 + t·(P2 + t·(P3 + t·(P4 + t·P5)))), each step rounded
	c := float64(t * p5)
	c = float64(t * (p4 + c))
	c = float64(t * (p3 + c))
	c = float64(t * (p2 + c))
	c = r - float64(t*(p1+c))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	if k >= -1021 && k <= 1023 {
		// y·2^k with y in [0.7, 1.5] is normal: multiplying by the power of
		// two is exact and gives math.Ldexp's result without its call
		return y * math.Float64frombits(uint64(k+1023)<<52)
	}
	return math.Ldexp(y, k)
}

// DetTanh returns tanh(x), bit-identical on every machine.
func DetTanh(x float64) float64 {
	const (
		maxLog = 8.8029691931113054295988e+01 // log(2^127)
		p0     = -9.64399179425052238628e-1
		p1     = -9.92877231001918586564e1
		p2     = -1.61468768441708447952e3
		q0     = 1.12811678491632931402e2
		q1     = 2.23548839060100448583e3
		q2     = 4.84406305325125486048e3
	)
	z := math.Abs(x)
	switch {
	case z > 0.5*maxLog:
		if x < 0 {
			return -1
		}
		return 1
	case z >= 0.625:
		s := DetExp(2 * z)
		// −z for x < 0, without a branch (z ≥ 0 here)
		return math.Copysign(1-2/(s+1), x)
	case x == 0:
		return x
	}
	s := float64(x * x)
	num := float64(float64(float64(p0*s)+p1)*s) + p2     // (P0·s + P1)·s + P2
	den := float64(float64(float64((s+q0)*s)+q1)*s) + q2 // ((s + Q0)·s + Q1)·s + Q2
	return x + float64(x*s)*num/den
}
