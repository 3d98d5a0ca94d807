package kat

// RFC7748X25519 is rfc7748_x25519.json: the X25519 test vectors of RFC
// 7748 sections 5.2 and 6.1, as 32-byte little-endian strings.
type RFC7748X25519 struct {
	Section52 []struct {
		Scalar Hex `json:"scalar"`
		U      Hex `json:"u"`
		Output Hex `json:"output"`
	} `json:"section_5_2"`
	Iterated struct {
		Start        Hex `json:"start"`
		After1       Hex `json:"after_1"`
		After1000    Hex `json:"after_1000"`
		After1000000 Hex `json:"after_1000000"`
	} `json:"section_5_2_iterated"`
	Section61 struct {
		AlicePrivate Hex `json:"alice_private"`
		AlicePublic  Hex `json:"alice_public"`
		BobPrivate   Hex `json:"bob_private"`
		BobPublic    Hex `json:"bob_public"`
		SharedSecret Hex `json:"shared_secret"`
	} `json:"section_6_1"`
}

// WycheproofXDH is Wycheproof's XDH (X25519) file. Result is "valid" or
// "acceptable"; the acceptable cases with the flag ZeroSharedSecret have
// an all-zero shared secret, which SSH must reject.
type WycheproofXDH struct {
	Algorithm     string `json:"algorithm"`
	NumberOfTests int    `json:"numberOfTests"`
	TestGroups    []struct {
		Curve string             `json:"curve"`
		Tests []WycheproofDHTest `json:"tests"`
	} `json:"testGroups"`
}

// WycheproofDHTest is one Wycheproof Diffie-Hellman test case (XDH and
// ECDH files): a private key, the peer's public key (raw, SEC1 or DER by
// the file's encoding) and the shared secret, valid / invalid /
// acceptable.
type WycheproofDHTest struct {
	TcID    int      `json:"tcId"`
	Comment string   `json:"comment"`
	Flags   []string `json:"flags"`
	Public  Hex      `json:"public"`
	Private Hex      `json:"private"`
	Shared  Hex      `json:"shared"`
	Result  string   `json:"result"`
}
