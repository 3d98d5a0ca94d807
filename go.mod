module github.com/pqkex/pqkex

go 1.26.0

require (
	github.com/cloudflare/circl v1.6.5 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	golang.org/x/crypto v0.59.0 // indirect
	golang.org/x/sys v0.50.0 // indirect
)
