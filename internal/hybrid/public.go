package hybrid

import "io"

// Public is a method package's exported constructors, which that package
// records in its Method at init (Method.Public). The known-answer runners
// of internal/kat run the exported API through it: they stand below the
// method packages (internal/layering) and do not import them. It is zero
// in a binary that does not link the method's package.
type Public struct {
	NewClient func(rand io.Reader) (PublicClient, error)
	Respond   func(rand io.Reader, clientInit []byte) (serverReply, k []byte, err error)
}

// PublicClient is a method package's *Client.
type PublicClient interface {
	Init() []byte
	Finish(serverReply []byte) (k []byte, err error)
}

// PublicAPI is the Public of a method package's NewClient and Respond.
func PublicAPI[C PublicClient](newClient func(io.Reader) (C, error),
	respond func(io.Reader, []byte) ([]byte, []byte, error)) Public {
	return Public{
		NewClient: func(r io.Reader) (PublicClient, error) {
			c, err := newClient(r)
			if err != nil {
				return nil, err // not a non-nil interface holding a nil *Client
			}
			return c, nil
		},
		Respond: respond,
	}
}
