package mlkem1024nistp384

// Engine is the method's shared engine, for tests that run it with a
// fixed ML-KEM backend.
var Engine = method
