package rl

import "math"

// detLog returns the natural logarithm of x with the same bits on every
// machine: the standard library's math.Log runs an assembly routine on
// amd64, and its portable Go code may be compiled with fused multiply-adds
// elsewhere, which changes the last bit and is enough to make two trainings
// diverge (the reason ml/nn has DetExp and DetTanh, docs/ml.md §2.5). This is
// the algorithm of the standard library's portable code (FreeBSD's e_log.c as
// adapted by the Go authors, BSD licence) with every product that feeds an
// addition rounded on its own. Accuracy: about 1 ulp.
func detLog(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01
		ln2Lo = 1.90821492927058770002e-10
		l1    = 6.666666666666735130e-01
		l2    = 3.999999999940941908e-01
		l3    = 2.857142874366239149e-01
		l4    = 2.222219843214978396e-01
		l5    = 1.818357216161805012e-01
		l6    = 1.531383769920937332e-01
		l7    = 1.479819860511658591e-01
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x)
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	r := t1 + t2
	hfsq := float64(0.5 * float64(f*f))
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}
