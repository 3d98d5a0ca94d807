module github.com/pqkex/pqkex

go 1.26
