package sntrup761

// GenerateKeysFrom is GenerateKeys reading its randomness from rand, for
// the known-answer tests of package sntrup761_test.
var GenerateKeysFrom = generateKeys
