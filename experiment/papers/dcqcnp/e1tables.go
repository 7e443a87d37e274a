package dcqcnp

// E1's tables and figures.

import (
	"fmt"

	"github.com/ccsim/ccsim/experiment"
	"github.com/ccsim/ccsim/report"
)

// e1RecoveryTable is the recovery of each case beside the paper's numbers.
func e1RecoveryTable(cases map[string]e1Pair) report.Table {
	t := report.Table{ID: "recovery", Title: "Recovery to full speed (round of the last decrease → round at line rate)",
		Columns: []string{"case", "marks", "DCQCN-p full at round", "DCQCN-p rounds", "DCQCN full at round", "DCQCN rounds", "paper DCQCN-p", "paper DCQCN"}}
	paper := map[string][2]string{"single": {"full speed at round 9", "—"}, "two": {"9–10", "11–13"}, "three": {"9–10", "11–13"}}
	for _, c := range e1Cases {
		p := cases[c.id]
		fp, np := recovery(p.dp)
		fq, nq := recovery(p.dq)
		t.Rows = append(t.Rows, []string{c.title, ints(c.marks), roundsOr(fp), roundsOr(np), roundsOr(fq), roundsOr(nq), paper[c.id][0], paper[c.id][1]})
	}
	return t
}

// e1IncDecTable is the decrease–increase–decrease case at every gap.
func e1IncDecTable(incdec []e1Pair) report.Table {
	t := report.Table{ID: "incdec", Title: "Decrease, increase, decrease: recovery rounds after the second cut, by the gap K between the cuts (the paper: DCQCN-p 6, DCQCN 9, \"50 % faster\")",
		Columns: []string{"K", "marks", "DCQCN-p rounds", "DCQCN rounds", "DCQCN / DCQCN-p − 1 (%)", "DCQCN past the paper's 100 rounds"}}
	for i, k := range incdecGaps {
		p, q := incdec[i].rounds()
		fq, _ := recovery(incdec[i].dq)
		t.Rows = append(t.Rows, []string{fmt.Sprint(k), ints(incdec[i].marks), roundsOr(p), roundsOr(q), experiment.G4(faster(p, q)), fmt.Sprint(fq == 0 || fq > e1Rounds)})
	}
	return t
}

// e1PatternTable is the 10-mark pattern of each seed.
func e1PatternTable(pats []e1Pattern) report.Table {
	t := report.Table{ID: "pattern", Title: "10 marks in 100 rounds, by seed (the paper: DCQCN-p within 100 rounds, DCQCN 200; rate 50 % higher)",
		Columns: []string{"seed", "marks", "DCQCN-p full at round", "DCQCN full at round", "DCQCN-p mean R_c (rounds 1–100)", "DCQCN mean R_c", "DCQCN-p rate higher (%)"}}
	for _, p := range pats {
		t.Rows = append(t.Rows, []string{fmt.Sprint(p.seed), ints(p.marks), roundsOr(p.fullP), roundsOr(p.fullQ),
			fmt.Sprintf("%.4f", p.rcP), fmt.Sprintf("%.4f", p.rcQ), experiment.G4(experiment.Pct(p.rcP, p.rcQ))})
	}
	return t
}

// e1Figure plots rounds 1..n: DCQCN-p's R_c, R_t, α and the mark bit, and
// DCQCN's R_c (dashed).
func e1Figure(id, title string, p e1Pair, n int) report.Figure {
	n = min(n, len(p.dp)-1, len(p.dq)-1)
	var x, mark, rc, rt, a, qrc []float64
	for r := 1; r <= n; r++ {
		x = append(x, float64(r))
		b := 0.0
		if p.dp[r].Mark {
			b = 1
		}
		mark = append(mark, b)
		rc = append(rc, p.dp[r].Rc)
		rt = append(rt, p.dp[r].Rt)
		a = append(a, p.dp[r].Alpha)
		qrc = append(qrc, p.dq[r].Rc)
	}
	return report.Figure{ID: id, Title: title, XLabel: "scheduling round", YLabel: "ratio (0–1.4)", Step: true, YMin: 0, YMax: 1.4,
		Series: []report.Series{
			{Label: "bitb (mark)", X: x, Y: mark, Style: 4},
			{Label: "DCQCN-p R_c", X: x, Y: rc, Points: n <= 100, Style: 1},
			{Label: "DCQCN-p R_t", X: x, Y: rt, Style: 2},
			{Label: "DCQCN-p α", X: x, Y: a, Style: 3},
			{Label: "DCQCN R_c", X: x, Y: qrc, Dashed: true, Style: 5},
		}}
}

// e1IncDecFigure plots the recovery rounds of both algorithms by the gap.
func e1IncDecFigure(incdec []e1Pair) report.Figure {
	var x, yp, yq, pp, pq []float64
	for i, k := range incdecGaps {
		p, q := incdec[i].rounds()
		x = append(x, float64(k))
		yp, yq = append(yp, float64(p)), append(yq, float64(q))
		pp, pq = append(pp, 6), append(pq, 9)
	}
	return report.Figure{ID: "incdec-gaps", Title: "Decrease, increase, decrease: recovery rounds by the gap between the cuts", XLabel: "gap K (rounds between the two cuts)", YLabel: "rounds to full speed after the second cut", LogY: true,
		Series: []report.Series{
			{Label: "DCQCN-p", X: x, Y: yp, Points: true, Style: 1},
			{Label: "DCQCN", X: x, Y: yq, Points: true, Style: 5},
			{Label: "paper DCQCN-p (6)", X: x, Y: pp, Dashed: true, Style: 1},
			{Label: "paper DCQCN (9)", X: x, Y: pq, Dashed: true, Style: 5},
		}}
}

func e1Series(id, title string, p e1Pair, n int) report.Table {
	t := report.Table{ID: "rounds_" + id, Title: "Round series: " + title, Collapsed: true,
		Columns: []string{"round", "bitb", "DCQCN-p R_c", "DCQCN-p R_t", "DCQCN-p α", "DCQCN-p registered", "DCQCN R_c", "DCQCN R_t", "DCQCN α"}}
	f := func(v float64) string { return fmt.Sprintf("%.6g", v) }
	dp, dq := p.dp, p.dq
	for r := 1; r <= min(n, len(dp)-1, len(dq)-1); r++ {
		b := "0"
		if dp[r].Mark {
			b = "1"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(r), b, f(dp[r].Rc), f(dp[r].Rt), f(dp[r].Alpha), fmt.Sprint(!dp[r].Full), f(dq[r].Rc), f(dq[r].Rt), f(dq[r].Alpha)})
	}
	return t
}
