package mlkem768nistp256

// Engine is the method's shared engine, for tests that run it with a
// fixed ML-KEM backend.
var Engine = method
