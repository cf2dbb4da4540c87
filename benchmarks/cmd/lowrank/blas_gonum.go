//go:build !openblas || !cgo

package main

const blasName = "gonum"
