module github.com/wys-project/wys

go 1.26.8

require (
	golang.org/x/sync v0.24.0 // indirect
	gonum.org/v1/gonum v0.17.0 // indirect
)
