// Package arch holds no code: its tests check the architecture of the
// module (import layers, file and function sizes). See README.md,
// "Architecture".
package arch
