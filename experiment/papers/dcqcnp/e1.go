package dcqcnp

// E1: the single-QP behavioural model of the paper's Fig. 4 (a MATLAB
// model in the paper). One QP is scheduled in rounds; a round either
// carries a congestion mark (a rate decrease) or is a rate-increase timer
// event. DCQCN-p runs as ccsim's own reaction point (cc.DCQCNP, driven
// through the fabric.Algorithm interface with one round = one time
// threshold, 55 µs), so this experiment is also a check of the simulator's
// code. DCQCN runs as the equations of its paper as paper 004 restates
// them (§1; docs/algorithms/dcqcn.md §4), with rates as fractions of line
// rate. The readings of the model (strict, rai-literal, ge) change only the
// analysis: E1 has no simulation runs.

import (
	"fmt"
	"slices"

	"github.com/ccsim/ccsim/cc"
	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/fabric"
	"github.com/ccsim/ccsim/sim"
)

// modelState is one round's state of a reaction point (fractions of line
// rate).
type modelState struct {
	Mark          bool
	Rc, Rt, Alpha float64
	Full          bool // at line rate (DCQCN-p: de-registered)
}

// e1Cap is the most rounds a series is followed to find full speed (the
// paper plots 100; DCQCN with R_AI = 0.1 % of line rate needs hundreds).
const e1Cap = 100_000

// dcqcnpRounds drives ccsim's DCQCN-p reaction point: rounds 1.. with marks
// at the given rounds, at least n rounds, then on until it is back at full
// speed after its last mark (at most e1Cap rounds).
func dcqcnpRounds(p *cc.DCQCNPParams, marks map[int]bool, n int) []modelState {
	q := &fabric.QP{LineRateBps: 40e9}
	alg := cc.NewDCQCNP(p)(q)
	d := alg.(*cc.DCQCNP)
	alg.Start(q, 0)
	round := sim.Time(p.TimeThreshold * float64(sim.Microsecond))
	last := lastMark(marks)
	out := []modelState{{Rc: 1, Rt: 1, Alpha: p.AlphaInit, Full: true}}
	for r := 1; r <= e1Cap && (r <= n || r <= last || !out[r-1].Full); r++ {
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
		out = append(out, st)
	}
	return out
}

func lastMark(marks map[int]bool) int {
	last := 0
	for r, m := range marks {
		if m {
			last = max(last, r)
		}
	}
	return last
}

// dcqcnModel is DCQCN's reaction point in the paper's round model
// (paper 004 §1, eqs. (2)–(8)): a mark cuts (R_T = R_C, R_C·(1 − α/2),
// α ← (1−g)α + g, counters reset); every other round is one timer event
// (T += 1, increase, α ← (1−g)α). Fast recovery while T ≤ F, additive
// (R_T += R_AI) once T is greater than F ("B、T 任一个大于 F 时", strict),
// or from the F-th event (T ≥ F, the pseudo-code's lines 24/27) when
// strict is false. R_C is capped at line rate, R_T is not (as in the DCQCN
// paper's equations; ccsim's simulator caps R_T at line rate like NICs and
// the reference simulator, and then never reaches exactly line rate, so
// round counts come from this model).
type dcqcnModel struct {
	g, rai float64
	F      int
	strict bool
}

// rounds runs the model for at least n rounds, then on until full speed
// after the last mark (at most e1Cap rounds).
func (m dcqcnModel) rounds(marks map[int]bool, n int) []modelState {
	rc, rt, a, T := 1.0, 1.0, 1.0, 0
	full := true
	last := lastMark(marks)
	out := []modelState{{Rc: 1, Rt: 1, Alpha: 1, Full: true}}
	for r := 1; r <= e1Cap && (r <= n || r <= last || !full); r++ {
		switch {
		case marks[r]:
			rt = rc
			rc *= 1 - a/2
			a = (1-m.g)*a + m.g
			T = 0
			full = false
		case !full:
			T++
			if T > m.F || !m.strict && T == m.F {
				rt += m.rai
			}
			rc = (rc + rt) / 2
			a *= 1 - m.g
			if rc >= 1 {
				rc, full = 1, true
			}
		}
		out = append(out, modelState{Mark: marks[r], Rc: rc, Rt: rt, Alpha: a, Full: full})
	}
	return out
}

// recovery returns the round at which the QP is back at line rate after
// its last mark, and the rounds that took (0, 0 if it never recovered
// within the series).
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

// e1Model is the pair of reaction points under one reading of the model.
type e1Model struct {
	dcqcnp *cc.DCQCNPParams
	dcqcn  dcqcnModel
}

// e1ModelFor is the model of reading id (docs/algorithms/dcqcnp.md §9):
// strict (primary) — both additive only when T > F, DCQCN's R_AI = 40 Mb/s
// of a 40 Gb/s line (0.001); rai-literal — DCQCN's R_AI = 40 Gb/s as
// printed (1 line rate); ge — both additive from T = F.
func e1ModelFor(id string) e1Model {
	m := e1Model{dcqcnp: cc.DCQCNPDefaults(), dcqcn: dcqcnModel{g: 1.0 / 256, rai: 0.001, F: 5, strict: true}}
	switch id {
	case "rai-literal":
		m.dcqcn.rai = 1
	case "ge":
		m.dcqcnp.StrictAI = false
		m.dcqcn.strict = false
	}
	return m
}

// e1Case is one of the paper's mark patterns.
type e1Case struct {
	id, title string
	marks     []int
}

var e1Cases = []e1Case{
	{"single", "one decrease (mark at round 3)", []int{3}},
	{"two", "two consecutive decreases (rounds 3, 4)", []int{3, 4}},
	{"three", "three consecutive decreases (rounds 3, 4, 5)", []int{3, 4, 5}},
}

// incdecGaps are the gaps K between the two cuts of the decrease–
// increase–decrease case (marks at rounds 3 and 3 + K): the paper does not
// give it.
var incdecGaps = []int{2, 3, 4, 5, 6, 7, 8, 9, 10}

// e1Rounds is the length of the plotted series (the paper plots 100).
const e1Rounds = 100

// patternMarks draws the 10 marks of "100 rounds at marking probability
// P_max = 0.1": the first at round 3 (the text: "当首次出现拥塞信号时，图 4
// 中 R_c 为 (3, 0.5)", the first congestion signal gives R_c = 0.5 at round
// 3), 9 more distinct rounds in [4, 100], uniformly (seeded).
func patternMarks(seed uint64) []int {
	rng := sim.Stream(seed, "dcqcn-p/e1/marks")
	set := map[int]bool{3: true}
	for len(set) < 10 {
		set[4+rng.IntN(97)] = true
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

// e1Readings are the readings of the model: the paper's text and its
// pseudo-code disagree on the boundary of the additive stage, and its
// Table 3 prints DCQCN's R_AI as "40 Gbit/s".
func e1Readings() []experiment.Reading {
	return []experiment.Reading{
		{ID: "strict", Primary: true, Title: "additive increase once T is greater than F (both algorithms); DCQCN's R_AI = 40 Mb/s",
			Why: `§1: "一般恢复时, B、T 都小于 F 时 … 额外恢复时, B、T 任一个大于 F 时" (fast recovery while B and T are below F, additive once either is greater than F); §2.3: "当连续 5 次未出现拥塞信号时，系统将执行额外的速度恢复策略" (after 5 mark-free rounds the additive recovery runs). R_AI: Table 3's "40 Gbit/s" read as the 40 Mb/s of the DCQCN paper (ref. [7], which the paper cites for these parameters: "参考文献[7]…中的 DCQCN 控制参数"); a whole line rate per additive step would make fast recovery pointless.`},
		{ID: "rai-literal", Title: "as strict, with DCQCN's R_AI = 40 Gb/s as printed (one line rate per additive step)",
			Why: `Table 3 prints DCQCN's "R_ai/(Gbit/s) 40".`},
		{ID: "ge", Title: "additive increase from T = F (both algorithms)",
			Why: `The pseudo-code, lines 24 and 27: "if (T < F 或 B < F) … if (T ≥ F 或 B ≥ F)".`},
	}
}

func e1() *experiment.Experiment {
	return &experiment.Experiment{
		ID:       "e1",
		Title:    "Single-QP behavioural model (Fig. 4)",
		SetupAt:  e1Setup,
		Claims:   e1Claims(),
		Readings: e1Readings(),
		Analyze:  analyzeE1,
	}
}

func e1Setup(sc experiment.Scale) string {
	return `One queue pair is scheduled in rounds (the paper's MATLAB model: 100 scheduled transmissions of one QPN). A round either carries a congestion mark — a rate decrease — or is one rate-increase timer event (T += 1, rate increase, α step). Time gaps between marks are not modelled: the decrease gate D and the increase interval U of DCQCN-p are not exercised (one round = one time threshold, 55 µs). Every series is followed until the QP is back at full speed (at most 100,000 rounds), also past the paper's 100 rounds.

DCQCN-p is ccsim's reaction point itself (cc.DCQCNP with its defaults: g = 1/16, α₀ = 1, F = 5, R_ai = 0.2 of line rate, piecewise α decay, additive increase once T > F), driven through the simulator's algorithm interface. DCQCN is the reaction point the paper restates (§1, eqs. (2)–(8)) as equations: g = 1/256, F = 5, R_AI = 40 Mb/s at a 40 Gb/s line rate = 0.001, additive once T > F, R_C capped at line rate, R_T not. Readings: rai-literal (DCQCN's R_AI = 1 line rate, Table 3's literal "40 Gbit/s") and ge (both algorithms additive from T = F, the pseudo-code's lines 24/27).

Cases: one decrease (mark at round 3), two and three consecutive decreases (rounds 3–4, 3–5; where the paper's Fig. 4 puts them is not known: its text has R_c = 0.75 at round 4 in panel c), decrease–increase–decrease with the second cut K rounds after the first (marks at 3 and 3 + K, K = 2 … 10: the paper does not give K), and a pattern of 10 marks in 100 rounds (the paper's "P_max = 0.1, 10 marks"): the first at round 3 (the text's "(3, 0.5)" at the first congestion signal), 9 more drawn at random in rounds 4–100, ` + seedsText(sc) + `. Recovery rounds = the round at which R_c is back at line rate minus the round of the last mark. "50 % faster recovery" is derived as the paper's own numbers give it: DCQCN's recovery rounds / DCQCN-p's − 1 (9/6 − 1 = 50 %) in the decrease–increase–decrease case; "50 % higher rate" as the mean R_c over rounds 1–100 of the 10-mark pattern, DCQCN-p's / DCQCN's − 1.` + experiment.AtScale(sc, " At quick scale only the pattern's seeds change (one); every other case is the same as at paper scale.", "")
}

// e1Claims are the claims of §2.3 and the abstract, typed.
func e1Claims() []experiment.Claim {
	rounds := func(id, desc, pv string, lo, hi float64) experiment.Claim {
		return experiment.Claim{ID: id, Description: desc, PaperValue: pv, Unit: "rounds", Kind: experiment.Range, Lo: lo, Hi: hi}
	}
	prec := &experiment.Tolerance{Abs: 0.0005} // R_c printed to 3 decimals
	cs := []experiment.Claim{
		{ID: "first-cut", Description: "first congestion signal: DCQCN-p's R_c is 0.5 at round 3 (§2.3)", PaperValue: "(3, 0.5)", Kind: experiment.Exact, Paper: 0.5, Tol: prec},
		{ID: "fast-recovery-5", Description: "fast recovery after one decrease: R_c = 0.875 at round 5 (§2.3, Fig. 4a)", PaperValue: "(5, 0.875)", Kind: experiment.Exact, Paper: 0.875, Tol: prec},
		{ID: "fast-recovery-4", Description: "fast recovery: R_c = 0.75 at round 4 (§2.3, \"Fig. 4c\"; checked on the one-decrease series)", PaperValue: "(4, 0.75)", Kind: experiment.Exact, Paper: 0.75, Tol: prec},
		{ID: "full-speed", Description: "after one decrease DCQCN-p is back at full speed at round 9 (§2.3: \"R_c 为 (9,1)\")", PaperValue: "9", Unit: "round", Kind: experiment.Exact, Paper: 9},
		{ID: "full-speed-rt0", Description: "at full speed R_t is set to 0 and the flow de-registered (§2.3)", PaperValue: "R_t = 0", Kind: experiment.Exact, Paper: 0},
		rounds("consecutive-dcqcnp-2", "DCQCN-p's recovery rounds after 2 consecutive decreases (§2.3: \"通常需要 9 到 10 次\")", "9–10", 9, 10),
		rounds("consecutive-dcqcnp-3", "DCQCN-p's recovery rounds after 3 consecutive decreases", "9–10", 9, 10),
		rounds("consecutive-dcqcn-2", "DCQCN's recovery rounds after 2 consecutive decreases (§2.3: \"DCQCN 算法则需 11 到 13 次\")", "11–13", 11, 13),
		rounds("consecutive-dcqcn-3", "DCQCN's recovery rounds after 3 consecutive decreases", "11–13", 11, 13),
		{ID: "consecutive-order-2", Description: "after 2 consecutive decreases DCQCN-p recovers in fewer rounds than DCQCN (§2.3: \"明显优于\")", PaperValue: "9–10 < 11–13", Unit: "rounds", Kind: experiment.Direction, Rel: experiment.Less},
		{ID: "consecutive-order-3", Description: "after 3 consecutive decreases DCQCN-p recovers in fewer rounds than DCQCN", PaperValue: "9–10 < 11–13", Unit: "rounds", Kind: experiment.Direction, Rel: experiment.Less},
	}
	for _, k := range incdecGaps {
		g := fmt.Sprintf("g%d", k)
		cs = append(cs,
			experiment.Claim{ID: "incdec-" + g + "-dcqcnp", Description: fmt.Sprintf("decrease–increase–decrease (second cut %d rounds after the first): DCQCN-p needs 6 rounds to full speed (§2.3)", k), PaperValue: "6", Unit: "rounds", Kind: experiment.Exact, Paper: 6},
			experiment.Claim{ID: "incdec-" + g + "-dcqcn", Description: fmt.Sprintf("decrease–increase–decrease (gap %d): DCQCN needs 9 rounds (§2.3)", k), PaperValue: "9", Unit: "rounds", Kind: experiment.Exact, Paper: 9},
			experiment.Claim{ID: "faster50-" + g, Description: fmt.Sprintf("decrease–increase–decrease (gap %d): DCQCN-p recovers 50 %% faster than DCQCN (§2.3: \"快了 50%%\" = 9/6 − 1; ccsim: DCQCN's rounds / DCQCN-p's − 1)", k), PaperValue: "50", Unit: "%",
				Kind: experiment.Direction, Rel: experiment.Less, Mag: experiment.MagValue, Paper: 50},
		)
	}
	return append(cs,
		experiment.Claim{ID: "pattern-dcqcnp", Description: "10 marks in 100 rounds: DCQCN-p is back at full speed within the 100 rounds (§2.3: \"可以在 100 次调度中处理包\")", PaperValue: "≤ 100", Unit: "round", Kind: experiment.Range, Lo: 0, Hi: 100},
		experiment.Claim{ID: "pattern-dcqcn", Description: "10 marks in 100 rounds: DCQCN needs 200 rounds for the same recovery (§2.3: \"DCQCN 则需使用 200 次调度\"; the round at which each is back at full speed)", PaperValue: "200", Unit: "round",
			Kind: experiment.Direction, Rel: experiment.Less, Mag: experiment.MagValue, Paper: 200},
		experiment.Claim{ID: "rate50", Description: "abstract: in single-flow congestion DCQCN-p's transfer rate is 50 % higher than DCQCN's (mean R_c over rounds 1–100 of the 10-mark pattern)", PaperValue: "50", Unit: "%",
			Kind: experiment.Direction, Rel: experiment.Greater, Mag: experiment.MagValue, Paper: 50},
	)
}
