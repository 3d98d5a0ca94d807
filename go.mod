module github.com/pqkex/pqkex

go 1.26.0

require (
	github.com/cloudflare/circl v1.4.0
	github.com/google/go-cmp v0.7.0
	golang.org/x/crypto v0.52.0
	golang.org/x/sys v0.45.0
)
