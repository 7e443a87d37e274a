package nn_test

import (
	"bytes"
	"fmt"
	"log"

	"github.com/ccsim/ccsim/ml/nn"
)

// Example builds paper 001's predictor shape (LSTM over 3 steps, 1 input, 16
// hidden units, linear head 16 → 1), trains it with the MAE loss and Adam,
// saves it, loads it back and predicts without allocating.
func Example() {
	lstm, err := nn.NewLSTM(1, 16, false) // many-to-one
	if err != nil {
		log.Fatal(err)
	}
	head, err := nn.NewDense(16, 1, nn.TorchDefault)
	if err != nil {
		log.Fatal(err)
	}
	m, err := nn.NewSequential(lstm, head)
	if err != nil {
		log.Fatal(err)
	}
	r := nn.NewRand(1)
	m.Init(r)

	// a toy task: the next value of x_{t+1} = 0.9·x_t
	data := nn.Dataset{Steps: 3}
	for range 256 {
		x0 := r.Float64() - 0.5
		x := []float64{x0, 0.9 * x0, 0.81 * x0}
		data.X = append(data.X, x)
		data.Y = append(data.Y, []float64{0.729 * x0})
	}
	opt, err := nn.NewAdam(m.Params(), nn.AdamConfig{LR: 0.003, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8})
	if err != nil {
		log.Fatal(err)
	}
	tr, err := nn.NewTrainer(m, opt, nn.MAE, 32, r)
	if err != nil {
		log.Fatal(err)
	}
	err = tr.Fit(data, 30, func(epoch int, loss float64) error {
		if epoch%10 == 0 {
			fmt.Printf("epoch %d: train MAE %.3f\n", epoch, loss)
		}
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}

	var file bytes.Buffer
	if err := nn.Save(&file, m, "example: x_{t+1} = 0.9 x_t"); err != nil {
		log.Fatal(err)
	}
	loaded, meta, err := nn.Load(&file)
	if err != nil {
		log.Fatal(err)
	}
	ws := loaded.NewWorkspace(3) // one per concurrent user (e.g. per flow)
	y, err := loaded.Forward(ws, []float64{0.4, 0.36, 0.324}, 3)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s; %v; prediction %.2f (exact 0.29)\n", meta, loaded, y[0])
	// Output:
	// epoch 10: train MAE 0.017
	// epoch 20: train MAE 0.002
	// epoch 30: train MAE 0.003
	// example: x_{t+1} = 0.9 x_t; lstm(1→16, last) → dense(16→1); prediction 0.29 (exact 0.29)
}
