package dcqcnp

// E1: the single-QP behavioural model of the paper's Fig. 4 (a MATLAB
// model in the paper). One QP is scheduled in rounds; a round either
// carries a congestion mark (a rate decrease) or is a rate-increase timer
// event. DCQCN-p runs as ccsim's own reaction point (cc.DCQCNP, driven
// through the fabric.Algorithm interface with one round = one time
// threshold, 55 µs), so this experiment is also a check of the simulator's
// code. DCQCN runs as the equations of its paper (docs/algorithms/dcqcn.md
// §"canonical"), with rates as fractions of line rate.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/report"
	"github.com/ccsim/ccsim/sim"
)

// modelState is one round's state of a reaction point (fractions of line
// rate).
type modelState struct {
	Mark          bool
	Rc, Rt, Alpha float64
	Full          bool // at line rate (DCQCN-p: de-registered)
}

// dcqcnpRounds drives ccsim's DCQCN-p reaction point: rounds 1..n, marks
// at the given rounds.
func dcqcnpRounds(p *cc.DCQCNPParams, marks map[int]bool, n int) []modelState {
	q := &fabric.QP{LineRateBps: 40e9}
	alg := cc.NewDCQCNP(p)(q)
	d := alg.(*cc.DCQCNP)
	alg.Start(q, 0)
	round := sim.Time(p.TimeThreshold * float64(sim.Microsecond))
	out := make([]modelState, n+1)
	out[0] = modelState{Rc: 1, Rt: 1, Alpha: p.AlphaInit, Full: true}
	for r := 1; r <= n; r++ {
		now := sim.Time(r) * round
		if marks[r] {
			alg.OnNotice(q, &fabric.Notice{Kind: fabric.KindCNP}, now)
		} else {
			alg.OnSend(q, 0, now) // advances the rate-increase timer
		}
		st := modelState{Mark: marks[r], Rc: d.Rc, Rt: d.Rt, Alpha: d.Alpha, Full: !d.Registered}
		if !d.Registered {
			st.Rc = 1
		}
		out[r] = st
	}
	return out
}

// dcqcnModel is DCQCN's reaction point in the paper's round model
// (docs/algorithms/dcqcn.md, canonical mode): a mark cuts (R_T = R_C,
// R_C·(1 − α/2), α ← (1−g)α + g, counters reset); every other round is
// one timer event (T += 1, increase, α ← (1−g)α). Fast recovery while
// T < F, additive (R_T += R_AI) from the F-th event; R_C is capped at
// line rate, R_T is not (as in the DCQCN paper's equations; ccsim's
// simulator caps R_T at line rate like NICs and the reference simulator,
// and then never reaches exactly line rate, so round counts come from
// this model).
type dcqcnModel struct {
	g, rai float64
	F      int
}

func (m dcqcnModel) rounds(marks map[int]bool, n int) []modelState {
	rc, rt, a, T := 1.0, 1.0, 1.0, 0
	full := true
	out := make([]modelState, n+1)
	out[0] = modelState{Rc: 1, Rt: 1, Alpha: 1, Full: true}
	for r := 1; r <= n; r++ {
		switch {
		case marks[r]:
			rt = rc
			rc *= 1 - a/2
			a = (1-m.g)*a + m.g
			T = 0
			full = false
		case !full:
			T++
			if T >= m.F {
				rt += m.rai
			}
			rc = (rc + rt) / 2
			a *= 1 - m.g
			if rc >= 1 {
				rc, full = 1, true
			}
		}
		out[r] = modelState{Mark: marks[r], Rc: rc, Rt: rt, Alpha: a, Full: full}
	}
	return out
}

// recovery returns the round at which the QP is back at line rate after
// its last mark, and the rounds that took (0, 0 if it never recovered).
func recovery(st []modelState) (round, rounds int) {
	last := 0
	for r := range st {
		if st[r].Mark {
			last = r
		}
	}
	for r := last + 1; r < len(st); r++ {
		if st[r].Full {
			return r, r - last
		}
	}
	return 0, 0
}

type e1Scenario struct {
	id, title string
	marks     []int
}

var e1Scenarios = []e1Scenario{
	{"single", "one decrease (mark at round 3)", []int{3}},
	{"two", "two consecutive decreases (rounds 3, 4)", []int{3, 4}},
	{"three", "three consecutive decreases (rounds 3, 4, 5)", []int{3, 4, 5}},
	{"incdec", "decrease, increase, decrease (rounds 3 and 5)", []int{3, 5}},
}

// e1Rounds is the length of the round series (the paper plots 100).
const e1Rounds = 100

// e1PatternRounds is how long the random 10-mark pattern is followed.
const e1PatternRounds = 400

// patternMarks draws the 10 marks of "100 rounds at marking probability
// P_max = 0.1": 10 distinct rounds in [3, 100], uniformly (seeded).
func patternMarks(seed uint64) []int {
	rng := sim.Stream(seed, "dcqcn-p/e1/marks")
	set := map[int]bool{}
	for len(set) < 10 {
		set[3+rng.IntN(98)] = true
	}
	var out []int
	for r := range set {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

func toSet(marks []int) map[int]bool {
	m := map[int]bool{}
	for _, r := range marks {
		m[r] = true
	}
	return m
}

// DCQCN in the model: the paper's Table 3 (g = 1/256, F = 5) with R_AI =
// 40 Mb/s at a 40 Gb/s line rate (docs/algorithms/dcqcnp.md: the table's
// "40 Gb/s" is a unit error); the literal reading (R_AI = one line rate)
// is shown beside it.
var (
	dcqcnInterp  = dcqcnModel{g: 1.0 / 256, rai: 0.001, F: 5}
	dcqcnLiteral = dcqcnModel{g: 1.0 / 256, rai: 1, F: 5}
)

func e1() *experiment.Experiment {
	return &experiment.Experiment{
		ID:    "e1",
		Title: "Single-QP behavioural model (Fig. 4)",
		Setup: `One queue pair is scheduled in rounds (the paper's MATLAB model: 100 scheduled transmissions of one QPN). A round either carries a congestion mark — a rate decrease — or is one rate-increase timer event (T += 1, rate increase, α step). Time gaps between marks are not modelled: the decrease gate D and the increase interval U of DCQCN-p are not exercised (one round = one time threshold, 55 µs).

DCQCN-p is ccsim's reaction point itself (cc.DCQCNP with its defaults: g = 1/16, α₀ = 1, F = 5, R_ai = 0.2 of line rate, piecewise α decay, additive increase only when T > F), driven through the simulator's algorithm interface. DCQCN is the DCQCN paper's reaction point as equations (g = 1/256, F = 5, R_AI = 40 Mb/s at a 40 Gb/s line rate = 0.001; additive from the F-th event; R_C capped at line rate, R_T not). The paper's Table 3 prints DCQCN's R_ai as "40 Gb/s"; that literal reading (R_AI = 1 line rate) is shown as a second DCQCN curve.

Scenarios: one decrease (mark at round 3), two and three consecutive decreases (rounds 3–4, 3–5), decrease–increase–decrease (marks at rounds 3 and 5), and a pattern of 10 marks drawn at random in rounds 3–100 (the paper's "P_max = 0.1, 10 marks in 100 rounds"). Recovery rounds = the round at which R_c is back at line rate minus the round of the last mark.`,
		Claims: []experiment.Claim{
			{ID: "first-cut", Description: "first mark: DCQCN-p's R_c is 0.5 at round 3", PaperValue: "(3, 0.5)", Verdict: true},
			{ID: "fast-recovery", Description: "fast recovery after one decrease: R_c 0.75 at round 4 and 0.875 at round 5 (Fig. 4c, 4a)", PaperValue: "(4, 0.75), (5, 0.875)", Verdict: true},
			{ID: "full-speed", Description: "after one decrease DCQCN-p is back at full speed at round 9, R_t set to 0 and the QP de-registered", PaperValue: "round 9", Verdict: true},
			{ID: "consecutive-dcqcnp", Description: "recovery rounds of DCQCN-p after 2 or 3 consecutive decreases", PaperValue: "9–10", Unit: "rounds", Verdict: true},
			{ID: "consecutive-dcqcn", Description: "recovery rounds of DCQCN after 2 or 3 consecutive decreases", PaperValue: "11–13", Unit: "rounds", Verdict: true},
			{ID: "consecutive-order", Description: "DCQCN-p recovers in fewer rounds than DCQCN after consecutive decreases", PaperValue: "yes", Verdict: true},
			{ID: "incdec", Description: "decrease–increase–decrease: rounds to full speed, DCQCN / DCQCN-p", PaperValue: "9 / 6", Unit: "rounds", Verdict: false},
			{ID: "incdec-order", Description: "decrease–increase–decrease: DCQCN-p recovers in fewer rounds than DCQCN", PaperValue: "yes", Verdict: true},
			{ID: "pattern", Description: "10 marks in 100 rounds: DCQCN-p handles the pattern within 100 rounds, DCQCN needs 200 (round at which each is back at full speed)", PaperValue: "≤ 100 / ≈ 200", Unit: "round", Verdict: true},
			{ID: "faster50", Description: "overall, DCQCN-p recovers 50 % faster than DCQCN (Σ recovery rounds of DCQCN / Σ of DCQCN-p − 1, over the four scenarios)", PaperValue: "50", Unit: "%", Verdict: true},
			{ID: "rate50", Description: "abstract: in single-flow congestion DCQCN-p's transfer rate is 50 % higher than DCQCN's (mean R_c over the 100 rounds of the 10-mark pattern)", PaperValue: "50", Unit: "%", Verdict: true},
		},
		Analyze: analyzeE1,
	}
}

func analyzeE1(ctx *experiment.Context) (*report.Section, error) {
	p := cc.DCQCNPDefaults()
	sec := &report.Section{}
	claims := map[string]report.Claim{}
	type result struct {
		dp, dq, dl []modelState
	}
	res := map[string]result{}
	summary := report.Table{ID: "recovery", Title: "Recovery to full speed (round of the last decrease → round at line rate)",
		Columns: []string{"scenario", "marks", "DCQCN-p full at round", "DCQCN-p rounds", "DCQCN full at round", "DCQCN rounds", "DCQCN (R_AI literal 40 Gb/s) rounds", "paper DCQCN-p", "paper DCQCN"}}
	paper := map[string][2]string{"single": {"9 (full speed at round 9)", "—"}, "two": {"9–10", "11–13"}, "three": {"9–10", "11–13"}, "incdec": {"6", "9"}}
	fmtRounds := func(full, n int) (string, string) {
		if full == 0 {
			return fmt.Sprintf("> %d", e1Rounds), "never"
		}
		return fmt.Sprint(full), fmt.Sprint(n)
	}
	for _, sc := range e1Scenarios {
		m := toSet(sc.marks)
		r := result{dcqcnpRounds(p, m, e1Rounds), dcqcnInterp.rounds(m, e1Rounds), dcqcnLiteral.rounds(m, e1Rounds)}
		res[sc.id] = r
		fp, np := recovery(r.dp)
		fq, nq := recovery(r.dq)
		_, nl := recovery(r.dl)
		a, b := fmtRounds(fp, np)
		c, d := fmtRounds(fq, nq)
		_, e := fmtRounds(0, nl)
		if nl > 0 {
			e = fmt.Sprint(nl)
		}
		summary.Rows = append(summary.Rows, []string{sc.title, ints(sc.marks), a, b, c, d, e, paper[sc.id][0], paper[sc.id][1]})
		sec.Figures = append(sec.Figures, e1Figure(sc.id, "Fig. 4 — "+sc.title, r.dp, r.dq, 30))
		sec.Tables = append(sec.Tables, e1Series(sc.id, sc.title, r.dp, r.dq, 30))
	}
	sec.Tables = append([]report.Table{summary}, sec.Tables...)

	single := res["single"].dp
	claims["first-cut"] = report.Verdict(fmt.Sprintf("(3, %.4g)", single[3].Rc), single[3].Rc == 0.5 && !single[2].Mark && single[3].Mark, "")
	claims["fast-recovery"] = report.Verdict(fmt.Sprintf("(4, %.4g), (5, %.4g)", single[4].Rc, single[5].Rc), single[4].Rc == 0.75 && single[5].Rc == 0.875, "")
	fs, _ := recovery(single)
	claims["full-speed"] = report.Verdict(fmt.Sprintf("round %d, R_t = %g, registered = %v", fs, single[fs].Rt, !single[fs].Full), fs == 9 && single[fs].Rt == 0, "")
	_, n2 := recovery(res["two"].dp)
	_, n3 := recovery(res["three"].dp)
	claims["consecutive-dcqcnp"] = report.Verdict(fmt.Sprintf("%d / %d", n2, n3), in(n2, 9, 10) && in(n3, 9, 10), "two / three consecutive decreases")
	_, q2 := recovery(res["two"].dq)
	_, q3 := recovery(res["three"].dq)
	claims["consecutive-dcqcn"] = report.Verdict(fmt.Sprintf("%s / %s", roundsOr(q2), roundsOr(q3)), in(q2, 11, 13) && in(q3, 11, 13),
		"with R_AI = 40 Mb/s the target rate R_T, set to the cut rate by the second decrease, climbs back by 0.1 % of line rate per round; the paper's 11–13 rounds need a larger step (the literal \"40 Gb/s\" gives "+roundsOr(func() int { _, n := recovery(res["two"].dl); return n }())+" / "+roundsOr(func() int { _, n := recovery(res["three"].dl); return n }())+")")
	claims["consecutive-order"] = report.Verdict(fmt.Sprintf("DCQCN-p %d / %d, DCQCN %s / %s", n2, n3, roundsOr(q2), roundsOr(q3)), fewer(n2, q2) && fewer(n3, q3), "")
	_, pi := recovery(res["incdec"].dp)
	_, qi := recovery(res["incdec"].dq)
	claims["incdec"] = report.Claim{ID: "incdec", CCSimValue: fmt.Sprintf("%s / %d", roundsOr(qi), pi),
		Note: "the paper's exact mark pattern is not given; marks at rounds 3 and 5 (one increase between)"}
	claims["incdec-order"] = report.Verdict(fmt.Sprintf("DCQCN-p %d, DCQCN %s", pi, roundsOr(qi)), fewer(pi, qi), "")

	marks := patternMarks(1)
	pm := toSet(marks)
	pp := dcqcnpRounds(p, pm, e1PatternRounds)
	pq := dcqcnInterp.rounds(pm, e1PatternRounds)
	rp, _ := recovery(pp)
	rq, _ := recovery(pq)
	claims["pattern"] = report.Verdict(fmt.Sprintf("%s / %s", roundOr(rp), roundOr(rq)), rp > 0 && rp <= 100 && (rq == 0 || rq > rp), "marks at rounds "+ints(marks))
	sumP, sumQ := 0, 0
	for _, id := range []string{"single", "two", "three", "incdec"} {
		_, a := recovery(res[id].dp)
		_, b := recovery(res[id].dq)
		if b == 0 {
			b = e1Rounds // never within the series: count the whole series
		}
		sumP += a
		sumQ += b
	}
	faster := experiment.Pct(float64(sumQ), float64(sumP))
	claims["faster50"] = report.Verdict(fmt.Sprintf("%.0f", faster), faster >= 50, fmt.Sprintf("Σ DCQCN %d rounds (never-recovered counted as %d) vs Σ DCQCN-p %d", sumQ, e1Rounds, sumP))
	meanP, meanQ := meanRc(pp[1:e1Rounds+1]), meanRc(pq[1:e1Rounds+1])
	higher := experiment.Pct(meanP, meanQ)
	claims["rate50"] = report.Verdict(fmt.Sprintf("%.0f", higher), higher >= 50, fmt.Sprintf("mean R_c %.3f vs %.3f of line rate", meanP, meanQ))
	sec.Figures = append(sec.Figures, e1Figure("pattern", "10 marks in 100 rounds", pp[:151], pq[:151], 150))
	sec.Tables = append(sec.Tables, e1Series("pattern", "10 marks in 100 rounds", pp, pq, 150))
	sec.Claims = ctx.Claims(claims)
	sec.Notes = append(sec.Notes,
		"DCQCN-p's numbers are those of ccsim's simulator code (cc.DCQCNP) driven round by round; they reproduce the paper's (3, 0.5), (4, 0.75), (5, 0.875) and full speed at round 9 only with additive increase when T > F (strict), the reading the paper's figure and its DCQCN text need (its pseudo-code says T ≥ F).",
		"After a decrease that follows an incomplete recovery, the target R_t is the reduced rate, so DCQCN with R_AI = 40 Mb/s needs hundreds of rounds; the paper's DCQCN counts (9, 11–13) are only reachable with a much larger additive step, such as the literal 40 Gb/s of its Table 3 (shown as a third column). The paper's MATLAB model is not published, so which reading it used cannot be settled.")
	return sec, nil
}

func meanRc(st []modelState) float64 {
	s := 0.0
	for _, x := range st {
		s += x.Rc
	}
	return s / float64(len(st))
}

func in(v, lo, hi int) bool { return v >= lo && v <= hi }

// fewer reports a < b for round counts where 0 means "never".
func fewer(a, b int) bool { return a > 0 && (b == 0 || a < b) }

func roundsOr(n int) string {
	if n == 0 {
		return fmt.Sprintf("> %d", e1Rounds)
	}
	return fmt.Sprint(n)
}

func roundOr(r int) string {
	if r == 0 {
		return fmt.Sprintf("> %d", e1PatternRounds)
	}
	return fmt.Sprint(r)
}

func ints(xs []int) string {
	var s []string
	for _, x := range xs {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, ", ")
}

// e1Figure plots rounds 1..n: DCQCN-p's R_c, R_t, α and the mark bit, and
// DCQCN's R_c (dashed).
func e1Figure(id, title string, dp, dq []modelState, n int) report.Figure {
	n = min(n, len(dp)-1)
	var x, mark, rc, rt, a, qrc []float64
	for r := 1; r <= n; r++ {
		x = append(x, float64(r))
		b := 0.0
		if dp[r].Mark {
			b = 1
		}
		mark = append(mark, b)
		rc = append(rc, dp[r].Rc)
		rt = append(rt, dp[r].Rt)
		a = append(a, dp[r].Alpha)
		qrc = append(qrc, dq[r].Rc)
	}
	return report.Figure{ID: id, Title: title, XLabel: "scheduling round", YLabel: "ratio (0–1.4)", Step: true, YMin: 0, YMax: 1.4,
		Series: []report.Series{
			{Label: "bitb (mark)", X: x, Y: mark, Style: 4},
			{Label: "DCQCN-p R_c", X: x, Y: rc, Points: true, Style: 1},
			{Label: "DCQCN-p R_t", X: x, Y: rt, Style: 2},
			{Label: "DCQCN-p α", X: x, Y: a, Style: 3},
			{Label: "DCQCN R_c", X: x, Y: qrc, Dashed: true, Style: 5},
		}}
}

func e1Series(id, title string, dp, dq []modelState, n int) report.Table {
	t := report.Table{ID: "rounds_" + id, Title: "Round series: " + title, Collapsed: true,
		Columns: []string{"round", "bitb", "DCQCN-p R_c", "DCQCN-p R_t", "DCQCN-p α", "DCQCN-p registered", "DCQCN R_c", "DCQCN R_t", "DCQCN α"}}
	f := func(v float64) string { return fmt.Sprintf("%.6g", v) }
	for r := 1; r <= min(n, len(dp)-1); r++ {
		b := "0"
		if dp[r].Mark {
			b = "1"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(r), b, f(dp[r].Rc), f(dp[r].Rt), f(dp[r].Alpha), fmt.Sprint(!dp[r].Full), f(dq[r].Rc), f(dq[r].Rt), f(dq[r].Alpha)})
	}
	return t
}
