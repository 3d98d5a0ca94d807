package core

// The last two stages of every transform of length m >= 48 (the radix-4
// stages of spans 16 and 4) as one pass over blocks of 16 values, with the
// span-16 twiddles exp(-2*pi*i*j*t/16) as constants: multiplications by
// 1 and -i disappear, those by (1-i)/sqrt 2 and (-1-i)/sqrt 2 take two
// real products, and the block stays in registers between the stages. The
// output order is that of the two stages (checked against them by
// TestFFT16).

// Twiddle constants: w^k = exp(-2*pi*i*k/16) = cos(k*pi/8) - i*sin(k*pi/8).
const (
	cos1 = 0.92387953251128675612818318939678828682241662586364 // cos(pi/8)
	sin1 = 0.38268343236508977172845998403039886676134456248563 // sin(pi/8)
	rt2h = 0.70710678118654752440084436210484903928483593768847 // sqrt(2)/2
)

// dif16 runs the two stages on each block of 16 of x (len(x) a multiple
// of 16).
func dif16(x []complex128) {
	for s := 0; s+15 < len(x); s += 16 {
		b := (*[16]complex128)(x[s : s+16])
		// Stage of span 16: column j combines b[j], b[j+4], b[j+8], b[j+12].
		y0, y4, y8, y12 := dif4(b[0], b[4], b[8], b[12])
		y1, y5, y9, y13 := dif4(b[1], b[5], b[9], b[13])
		y2, y6, y10, y14 := dif4(b[2], b[6], b[10], b[14])
		y3, y7, y11, y15 := dif4(b[3], b[7], b[11], b[15])
		// column 0: twiddles 1; column 1: w, w^2, w^3; column 2: w^2,
		// w^4 = -i, w^6; column 3: w^3, w^6, w^9 = -w.
		y5 = mulW1(y5)
		y9 = mulW2(y9)
		y13 = mulW3(y13)
		y6 = mulW2(y6)
		y10 = complex(imag(y10), -real(y10))
		y14 = mulW6(y14)
		y7 = mulW3(y7)
		y11 = mulW6(y11)
		y15 = -mulW1(y15)
		// Stage of span 4 on (y[4g], ..., y[4g+3]).
		b[0], b[1], b[2], b[3] = dif4(y0, y1, y2, y3)
		b[4], b[5], b[6], b[7] = dif4(y4, y5, y6, y7)
		b[8], b[9], b[10], b[11] = dif4(y8, y9, y10, y11)
		b[12], b[13], b[14], b[15] = dif4(y12, y13, y14, y15)
	}
}

// dit16 is the inverse of dif16 up to the factor 16 (the two stages of
// dit in the same order).
func dit16(x []complex128) {
	for s := 0; s+15 < len(x); s += 16 {
		b := (*[16]complex128)(x[s : s+16])
		y0, y1, y2, y3 := dit4(b[0], b[1], b[2], b[3])
		y4, y5, y6, y7 := dit4(b[4], b[5], b[6], b[7])
		y8, y9, y10, y11 := dit4(b[8], b[9], b[10], b[11])
		y12, y13, y14, y15 := dit4(b[12], b[13], b[14], b[15])
		// conjugate twiddles
		y5 = mulW1c(y5)
		y9 = mulW2c(y9)
		y13 = mulW3c(y13)
		y6 = mulW2c(y6)
		y10 = complex(-imag(y10), real(y10))
		y14 = mulW6c(y14)
		y7 = mulW3c(y7)
		y11 = mulW6c(y11)
		y15 = -mulW1c(y15)
		b[0], b[4], b[8], b[12] = dit4(y0, y4, y8, y12)
		b[1], b[5], b[9], b[13] = dit4(y1, y5, y9, y13)
		b[2], b[6], b[10], b[14] = dit4(y2, y6, y10, y14)
		b[3], b[7], b[11], b[15] = dit4(y3, y7, y11, y15)
	}
}

// dif4 is the twiddle-free radix-4 DIF butterfly of difFrom.
func dif4(a, b, c, d complex128) (complex128, complex128, complex128, complex128) {
	s0r, s0i := real(a)+real(c), imag(a)+imag(c)
	d0r, d0i := real(a)-real(c), imag(a)-imag(c)
	s1r, s1i := real(b)+real(d), imag(b)+imag(d)
	d1r, d1i := real(b)-real(d), imag(b)-imag(d)
	return complex(s0r+s1r, s0i+s1i), complex(d0r+d1i, d0i-d1r), // d0 - i*d1
		complex(s0r-s1r, s0i-s1i), complex(d0r-d1i, d0i+d1r) // d0 + i*d1
}

// dit4 is the twiddle-free radix-4 DIT butterfly of dit.
func dit4(a, b, c, d complex128) (complex128, complex128, complex128, complex128) {
	s0r, s0i := real(a)+real(c), imag(a)+imag(c)
	d0r, d0i := real(a)-real(c), imag(a)-imag(c)
	s1r, s1i := real(b)+real(d), imag(b)+imag(d)
	d1r, d1i := real(b)-real(d), imag(b)-imag(d)
	return complex(s0r+s1r, s0i+s1i), complex(d0r-d1i, d0i+d1r), // d0 + i*d1
		complex(s0r-s1r, s0i-s1i), complex(d0r+d1i, d0i-d1r) // d0 - i*d1
}

// mulW1 returns z * w with w = cos1 - i*sin1.
func mulW1(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex(x*cos1+y*sin1, y*cos1-x*sin1)
}

// mulW2 returns z * w^2 with w^2 = rt2h*(1 - i).
func mulW2(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex((x+y)*rt2h, (y-x)*rt2h)
}

// mulW3 returns z * w^3 with w^3 = sin1 - i*cos1.
func mulW3(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex(x*sin1+y*cos1, y*sin1-x*cos1)
}

// mulW6 returns z * w^6 with w^6 = rt2h*(-1 - i).
func mulW6(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex((y-x)*rt2h, -(x+y)*rt2h)
}

// mulW1c returns z * conj(w).
func mulW1c(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex(x*cos1-y*sin1, y*cos1+x*sin1)
}

// mulW2c returns z * conj(w^2).
func mulW2c(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex((x-y)*rt2h, (x+y)*rt2h)
}

// mulW3c returns z * conj(w^3).
func mulW3c(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex(x*sin1-y*cos1, y*sin1+x*cos1)
}

// mulW6c returns z * conj(w^6), conj(w^6) = rt2h*(-1 + i).
func mulW6c(z complex128) complex128 {
	x, y := real(z), imag(z)
	return complex(-(x+y)*rt2h, (x-y)*rt2h)
}
