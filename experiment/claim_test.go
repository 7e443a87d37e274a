package experiment

import (
	"math"
	"strings"
	"testing"
)

func TestEvaluateKinds(t *testing.T) {
	tol := DefaultTolerance
	s := func(v ...float64) Sample { return Sample(v) }
	cases := []struct {
		name string
		c    Claim
		m    Measure
		want Verdict
	}{
		{"direction holds", Claim{Kind: Direction, Rel: Less}, M(1, 2), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"direction fails", Claim{Kind: Direction, Rel: Less}, M(2, 1), Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"direction equal fails", Claim{Kind: Direction, Rel: Less}, M(2, 2), Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"greater", Claim{Kind: Direction, Rel: Greater}, M(3, 2), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		// paired seeds: every seed agrees / one seed disagrees
		{"seeds agree", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{s(1, 2, 3), s(2, 3, 4)}}, Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"seeds disagree", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{s(1, 2, 5), s(2, 3, 4)}}, Verdict{Statement: Inconclusive, Magnitude: NA, Holds: Inconclusive}},
		{"means contradict", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{s(1, 9, 9), s(2, 3, 4)}}, Verdict{Statement: No, Magnitude: NA, Holds: No}},
		// unpaired: spans overlap
		{"unpaired overlap", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{s(1, 3), s(2.5, 3, 4)}}, Verdict{Statement: Inconclusive, Magnitude: NA, Holds: Inconclusive}},
		{"order", Claim{Kind: Order, Rel: Less}, M(1, 2, 3), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"order broken", Claim{Kind: Order, Rel: Less}, M(1, 3, 2), Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"exact", Claim{Kind: Exact, Paper: 9}, M(9), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"exact off", Claim{Kind: Exact, Paper: 9}, M(10), Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"range", Claim{Kind: Range, Lo: 1, Hi: 2}, M(2), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"range out", Claim{Kind: Range, Lo: 1, Hi: 2}, M(2.01), Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"count 14 of 14", Claim{Kind: Count, Need: 14, Of: 14}, M(14, 14), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"count 13 of 14", Claim{Kind: Count, Need: 14, Of: 14}, M(13, 14), Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"count fraction", Claim{Kind: Count, Need: 14, Of: 14}, M(20, 20), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		// "cuts by 47 %": direction and magnitude side by side
		{"direction and size", Claim{Kind: Direction, Rel: Less, Mag: MagValue, Paper: -47}, Measure{Values: []Sample{{53}, {100}}, Mag: []Sample{{-47}}}, Verdict{Statement: Yes, Magnitude: Yes, Holds: Yes}},
		{"direction only the sign", Claim{Kind: Direction, Rel: Less, Mag: MagValue, Paper: -47}, Measure{Values: []Sample{{95}, {100}}, Mag: []Sample{{-5}}}, Verdict{Statement: Yes, Magnitude: No, Holds: No}},
		// tolerance edge: 25 % of 47 = 11.75
		{"within tolerance", Claim{Kind: Magnitude, Mag: MagValue, Paper: -47}, MagOf(-35.25), Verdict{Statement: NA, Magnitude: Yes, Holds: Yes}},
		{"outside tolerance", Claim{Kind: Magnitude, Mag: MagValue, Paper: -47}, MagOf(-35.2), Verdict{Statement: NA, Magnitude: No, Holds: No}},
		{"own band", Claim{Kind: Magnitude, Mag: MagValue, Paper: 4654, Tol: &Tolerance{Abs: 1}}, MagOf(4655), Verdict{Statement: NA, Magnitude: Yes, Holds: Yes}},
		// "by up to 59 %": the best point must reach it
		{"up to reached", Claim{Kind: Magnitude, Mag: MagUpTo, Paper: 59}, MagOf(10, 50, 20), Verdict{Statement: NA, Magnitude: Yes, Holds: Yes}},
		{"up to missed", Claim{Kind: Magnitude, Mag: MagUpTo, Paper: 59}, MagOf(10, 40, 20), Verdict{Statement: NA, Magnitude: No, Holds: No}},
		{"up to negative", Claim{Kind: Magnitude, Mag: MagUpTo, Paper: -59}, MagOf(-10, -50, 20), Verdict{Statement: NA, Magnitude: Yes, Holds: Yes}},
		{"span overlaps", Claim{Kind: Magnitude, Mag: MagSpan, Lo: 26, Hi: 90}, MagOf(65, 520), Verdict{Statement: NA, Magnitude: Yes, Holds: Yes}},
		{"span apart", Claim{Kind: Magnitude, Mag: MagSpan, Lo: 45, Hi: 49}, MagOf(-1, 4), Verdict{Statement: NA, Magnitude: No, Holds: No}},
		{"number", Claim{Kind: Number, Mag: MagValue, Paper: 5}, MagOf(7), Verdict{Statement: NA, Magnitude: NA, Holds: NA}},
		// lower bounds (censored flows): A < B needs an exact A; A ≥ B is a no only with an exact B
		{"bound decides yes", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{{1}, {2}}, Lower: []bool{false, true}}, Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"bound cannot confirm", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{{1}, {2}}, Lower: []bool{true, false}}, Verdict{Statement: Inconclusive, Magnitude: NA, Holds: Inconclusive}},
		{"bound decides no", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{{3}, {2}}, Lower: []bool{true, false}}, Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"bound cannot refute", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{{3}, {2}}, Lower: []bool{false, true}}, Verdict{Statement: Inconclusive, Magnitude: NA, Holds: Inconclusive}},
		{"greater with bound", Claim{Kind: Direction, Rel: Greater}, Measure{Values: []Sample{{3}, {2}}, Lower: []bool{true, false}}, Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"magnitude bound above", Claim{Kind: Magnitude, Mag: MagValue, Paper: 10}, Measure{Mag: []Sample{{20}}, MagLower: []bool{true}}, Verdict{Statement: NA, Magnitude: No, Holds: No}},
		{"magnitude bound within", Claim{Kind: Magnitude, Mag: MagValue, Paper: 10}, Measure{Mag: []Sample{{10}}, MagLower: []bool{true}}, Verdict{Statement: NA, Magnitude: Inconclusive, Holds: Inconclusive}},
		{"range bound above", Claim{Kind: Range, Lo: 1, Hi: 2}, Measure{Values: []Sample{{3}}, Lower: []bool{true}}, Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"range bound below", Claim{Kind: Range, Lo: 1, Hi: 2}, Measure{Values: []Sample{{0.5}}, Lower: []bool{true}}, Verdict{Statement: Inconclusive, Magnitude: NA, Holds: Inconclusive}},
		{"range unbounded above", Claim{Kind: Range, Lo: 1, Hi: math.Inf(1)}, Measure{Values: []Sample{{1.5}}, Lower: []bool{true}}, Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		// upper bounds: A < B with an upper-bounded A stands; with an upper-bounded B it is open
		{"upper a", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{{1}, {2}}, Upper: []bool{true}}, Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
		{"upper b", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{{1}, {2}}, Upper: []bool{false, true}}, Verdict{Statement: Inconclusive, Magnitude: NA, Holds: Inconclusive}},
		{"upper b decides no", Claim{Kind: Direction, Rel: Less}, Measure{Values: []Sample{{3}, {2}}, Upper: []bool{false, true}}, Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"magnitude upper below", Claim{Kind: Magnitude, Mag: MagValue, Paper: 10}, Measure{Mag: []Sample{{5}}, MagUpper: []bool{true}}, Verdict{Statement: NA, Magnitude: No, Holds: No}},
		{"magnitude upper above", Claim{Kind: Magnitude, Mag: MagValue, Paper: 10}, Measure{Mag: []Sample{{20}}, MagUpper: []bool{true}}, Verdict{Statement: NA, Magnitude: Inconclusive, Holds: Inconclusive}},
		// a span met only by a bounded point is open; met by an exact one, it holds
		// true values 95 and ≥ 20: they may all lie above 90
		{"span only bounded", Claim{Kind: Magnitude, Mag: MagSpan, Lo: 26, Hi: 90}, Measure{Mag: []Sample{{95}, {20}}, MagLower: []bool{false, true}}, Verdict{Statement: NA, Magnitude: Inconclusive, Holds: Inconclusive}},
		// true values 10 and ≥ 50: their span reaches into [26, 90] whatever the bound
		{"span bounded above", Claim{Kind: Magnitude, Mag: MagSpan, Lo: 26, Hi: 90}, Measure{Mag: []Sample{{10}, {50}}, MagLower: []bool{false, true}}, Verdict{Statement: NA, Magnitude: Yes, Holds: Yes}},
		{"span exact", Claim{Kind: Magnitude, Mag: MagSpan, Lo: 26, Hi: 90}, Measure{Mag: []Sample{{10}, {50}}, MagLower: []bool{true, false}}, Verdict{Statement: NA, Magnitude: Yes, Holds: Yes}},
		{"span all above", Claim{Kind: Magnitude, Mag: MagSpan, Lo: 26, Hi: 90}, Measure{Mag: []Sample{{100}, {120}}, MagLower: []bool{true, false}}, Verdict{Statement: NA, Magnitude: No, Holds: No}},
		// counts with undecided points
		{"count undecided", Claim{Kind: Count, Need: 5, Of: 5}, M(4, 5, 1), Verdict{Statement: Inconclusive, Magnitude: NA, Holds: Inconclusive}},
		{"count short", Claim{Kind: Count, Need: 5, Of: 5}, M(3, 5, 1), Verdict{Statement: No, Magnitude: NA, Holds: No}},
		{"count decided", Claim{Kind: Count, Need: 4, Of: 5}, M(4, 5, 1), Verdict{Statement: Yes, Magnitude: NA, Holds: Yes}},
	}
	for _, tc := range cases {
		tc.c.ID = tc.name
		got, err := Evaluate(&tc.c, tol, tc.m)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got.Statement != tc.want.Statement || got.Magnitude != tc.want.Magnitude || got.Holds != tc.want.Holds {
			t.Errorf("%s: statement/magnitude/holds = %s/%s/%s, want %s/%s/%s (%s)", tc.name,
				got.Statement, got.Magnitude, got.Holds, tc.want.Statement, tc.want.Magnitude, tc.want.Holds, got.Why)
		}
	}
}

func TestEvaluateMalformed(t *testing.T) {
	for name, tc := range map[string]struct {
		c Claim
		m Measure
	}{
		"direction with one value":  {Claim{Kind: Direction}, M(1)},
		"NaN value":                 {Claim{Kind: Direction}, M(1, math.NaN())},
		"magnitude without points":  {Claim{Kind: Magnitude, Mag: MagValue, Paper: 1}, Measure{}},
		"value with two points":     {Claim{Kind: Magnitude, Mag: MagValue, Paper: 1}, MagOf(1, 2)},
		"magnitude without a form":  {Claim{Kind: Magnitude}, MagOf(1)},
		"untyped":                   {Claim{}, M(1, 2)},
		"endless tolerance":         {Claim{Kind: Magnitude, Mag: MagValue, Paper: 1, Tol: &Tolerance{Rel: math.Inf(1)}}, MagOf(1)},
		"count of nothing":          {Claim{Kind: Count, Need: 1, Of: 0}, M(1, 1)},
		"inverted span":             {Claim{Kind: Magnitude, Mag: MagSpan, Lo: 2, Hi: 1}, MagOf(1)},
		"empty sample in an order":  {Claim{Kind: Order}, Measure{Values: []Sample{{1}, {}}}},
		"an order of a single item": {Claim{Kind: Order}, M(1)},
	} {
		tc.c.ID = name
		if _, err := Evaluate(&tc.c, DefaultTolerance, tc.m); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestDefaultText(t *testing.T) {
	c := Claim{ID: "x", Kind: Direction, Rel: Less, Mag: MagValue, Paper: -47}
	m := Measure{Values: []Sample{{53}, {100, 110, 90}}, Labels: []string{"DCON", "DCQCN"}, Mag: []Sample{{-47}}}
	v, err := Evaluate(&c, DefaultTolerance, m)
	if err != nil {
		t.Fatal(err)
	}
	if want := "DCON 53 vs DCQCN 100 (90 … 110); -47"; v.Value != want {
		t.Errorf("text %q, want %q", v.Value, want)
	}
	m.Text = "given"
	if v, _ := Evaluate(&c, DefaultTolerance, m); v.Value != "given" {
		t.Errorf("text %q, want the analysis's", v.Value)
	}
	if got := DefaultTolerance.String(); got != "±25 %" {
		t.Errorf("tolerance %q", got)
	}
}

// Every kind can fail and hold; a declaration that cannot fail is found.
func TestFlip(t *testing.T) {
	ok := []struct {
		c Claim
		m Measure
	}{
		{Claim{Kind: Direction, Rel: Less, Mag: MagValue, Paper: -47}, Measure{Values: []Sample{{1, 2, 3}, {2, 3, 4}}, Mag: []Sample{{-40, -41, -42}}}},
		{Claim{Kind: Order, Rel: Greater}, M(3, 2, 1, 0)},
		{Claim{Kind: Exact, Paper: 9}, M(9)},
		{Claim{Kind: Range, Lo: 0.5, Hi: math.Inf(1)}, M(1)},
		{Claim{Kind: Count, Need: 14, Of: 14}, M(3, 14)},
		{Claim{Kind: Count, Need: 14, Of: 14}, CountPairs(Less, []Sample{{1}, {2}}, []Sample{{2}, {1}}, nil, nil)},
		{Claim{Kind: Magnitude, Mag: MagUpTo, Paper: 59}, MagOf(1, 2, 3)},
		{Claim{Kind: Magnitude, Mag: MagUpTo, Paper: -59}, MagOf(1, 2, 3)},
		{Claim{Kind: Magnitude, Mag: MagSpan, Lo: 26, Hi: 90}, MagOf(1, 2)},
		{Claim{Kind: Range, Lo: 1, Hi: 2, Mag: MagValue, Paper: 1.5}, Measure{Values: []Sample{{1}}, Mag: []Sample{{1}}}},
		{Claim{Kind: Number, Mag: MagValue, Paper: 5}, MagOf(7)},
	}
	for i, tc := range ok {
		tc.c.ID = "ok"
		if err := Flip(&tc.c, DefaultTolerance, tc.m); err != nil {
			t.Errorf("case %d: %v", i, err)
		}
	}
	bad := map[string]struct {
		c Claim
		m Measure
	}{
		"unbounded range":  {Claim{Kind: Range, Lo: math.Inf(-1), Hi: math.Inf(1)}, M(1)},
		"count of 0":       {Claim{Kind: Count, Need: 0, Of: 14}, M(1, 14)},
		"endless band":     {Claim{Kind: Magnitude, Mag: MagValue, Paper: 1, Tol: &Tolerance{Abs: math.Inf(1)}}, MagOf(1)},
		"wrong arity":      {Claim{Kind: Direction}, M(1, 2, 3)},
		"untyped":          {Claim{}, M(1, 2)},
		"a magnitude kind": {Claim{Kind: Magnitude}, MagOf(1)},
	}
	for name, tc := range bad {
		tc.c.ID = name
		if err := Flip(&tc.c, DefaultTolerance, tc.m); err == nil {
			t.Errorf("%s: Flip found nothing wrong", name)
		} else if !strings.Contains(err.Error(), name) && !strings.Contains(err.Error(), "claim") {
			t.Errorf("%s: error %v does not name the claim", name, err)
		}
	}
}

func TestCountPairs(t *testing.T) {
	a := []Sample{{1}, {5}, {1, 2.5}, {1}, {1}}
	b := []Sample{{2}, {2}, {2, 2}, {2}, {2}}
	// holds at 0 and 4; fails at 1; seeds disagree at 2; a lower bound at 3
	m := CountPairs(Less, a, b, []bool{false, false, false, true}, nil)
	want := M(2, 5, 2)
	if len(m.Values) != 3 || m.Values[0][0] != want.Values[0][0] || m.Values[1][0] != 5 || m.Values[2][0] != 2 {
		t.Fatalf("CountPairs = %v, want [2 5 2]", m.Values)
	}
	if m := CountPairs(Less, []Sample{{1}, {math.NaN()}}, []Sample{{2}, {1}}, nil, nil); m.Values[0][0] != 1 || m.Values[2][0] != 1 {
		t.Errorf("a NaN point must be undecided, not a yes: %v", m.Values)
	}
	c := Claim{ID: "bins", Kind: Count, Need: 3, Of: 5}
	if v, err := Evaluate(&c, DefaultTolerance, m); err != nil || v.Holds != Inconclusive {
		t.Errorf("3 of 5 with 2 decided and 2 undecided: %v %v, want inconclusive", v.Holds, err)
	}
	if _, err := Evaluate(&c, DefaultTolerance, CountPairs(Less, a, b[:2], nil, nil)); err == nil {
		t.Error("pairs of unequal lengths gave no error")
	}
}

// A claim declared without a kind cannot be registered: there is no legacy
// path that would decide it by its paper's say-so.
func TestRegisterRefusesUntypedClaims(t *testing.T) {
	defer func() {
		x := recover()
		if x == nil {
			t.Fatal("Register accepted a claim without a kind")
		}
		if msg, _ := x.(string); !strings.Contains(msg, "t-untyped/e/c1") || !strings.Contains(msg, "no kind") {
			t.Errorf("panic %v does not name the claim and the fault", x)
		}
	}()
	Register(&Paper{ID: "t-untyped", Experiments: []*Experiment{{ID: "e", Claims: []Claim{{ID: "c1"}}}}})
}
