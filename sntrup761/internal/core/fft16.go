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
// of 16). Each column and each group goes through registers once; more
// live values would only be spilled.
func dif16(x []complex128) {
	if asmEnabled && len(x) >= 32 && len(x)%32 == 0 { // public length
		dif16AVX2(&x[0], len(x)/32)
		return
	}
	for s := 0; s+15 < len(x); s += 16 {
		b := (*[16]complex128)(x[s : s+16])
		// Stage of span 16: column j combines b[j], b[j+4], b[j+8], b[j+12]
		// and multiplies by w^j, w^2j, w^3j: column 0 by 1; column 1 by
		// w, w^2, w^3; column 2 by w^2, w^4 = -i, w^6; column 3 by w^3,
		// w^6, w^9 = -w.
		b[0], b[4], b[8], b[12] = dif4(b[0], b[4], b[8], b[12])
		y1, y5, y9, y13 := dif4(b[1], b[5], b[9], b[13])
		b[1], b[5], b[9], b[13] = y1, mulW1(y5), mulW2(y9), mulW3(y13)
		y2, y6, y10, y14 := dif4(b[2], b[6], b[10], b[14])
		b[2], b[6], b[10], b[14] = y2, mulW2(y6), complex(imag(y10), -real(y10)), mulW6(y14)
		y3, y7, y11, y15 := dif4(b[3], b[7], b[11], b[15])
		b[3], b[7], b[11], b[15] = y3, mulW3(y7), mulW6(y11), -mulW1(y15)
		// Stage of span 4 on each group b[4g..4g+3].
		b[0], b[1], b[2], b[3] = dif4(b[0], b[1], b[2], b[3])
		b[4], b[5], b[6], b[7] = dif4(b[4], b[5], b[6], b[7])
		b[8], b[9], b[10], b[11] = dif4(b[8], b[9], b[10], b[11])
		b[12], b[13], b[14], b[15] = dif4(b[12], b[13], b[14], b[15])
	}
}

// dit16 is the inverse of dif16 up to the factor 16 (the two stages of
// dit in the same order).
func dit16(x []complex128) {
	for s := 0; s+15 < len(x); s += 16 {
		b := (*[16]complex128)(x[s : s+16])
		b[0], b[1], b[2], b[3] = dit4(b[0], b[1], b[2], b[3])
		b[4], b[5], b[6], b[7] = dit4(b[4], b[5], b[6], b[7])
		b[8], b[9], b[10], b[11] = dit4(b[8], b[9], b[10], b[11])
		b[12], b[13], b[14], b[15] = dit4(b[12], b[13], b[14], b[15])
	}
	dit16Columns(x)
}

// dit16Products is dit16 applied to the pointwise products z = a*b + c*d
// (c and d nil: z = a*b), which are formed as the first stage reads them.
func dit16Products(z, a, b, c, d []complex128) {
	n := len(z)
	a, b = a[:n], b[:n]
	if asmEnabled && n >= 32 && n%32 == 0 { // public length
		if c == nil {
			dit16ProductsAVX2(&z[0], &a[0], &b[0], n/32)
		} else {
			c, d = c[:n], d[:n]
			dit16ProductSumsAVX2(&z[0], &a[0], &b[0], &c[0], &d[0], n/32)
		}
		return
	}
	if c == nil {
		for s := 0; s+3 < n; s += 4 {
			zs, as, bs := (*[4]complex128)(z[s:s+4]), (*[4]complex128)(a[s:s+4]), (*[4]complex128)(b[s:s+4])
			zs[0], zs[1], zs[2], zs[3] = dit4(as[0]*bs[0], as[1]*bs[1], as[2]*bs[2], as[3]*bs[3])
		}
	} else {
		c, d = c[:n], d[:n]
		for s := 0; s+3 < n; s += 4 {
			zs, as, bs := (*[4]complex128)(z[s:s+4]), (*[4]complex128)(a[s:s+4]), (*[4]complex128)(b[s:s+4])
			cs, ds := (*[4]complex128)(c[s:s+4]), (*[4]complex128)(d[s:s+4])
			zs[0], zs[1], zs[2], zs[3] = dit4(as[0]*bs[0]+cs[0]*ds[0], as[1]*bs[1]+cs[1]*ds[1],
				as[2]*bs[2]+cs[2]*ds[2], as[3]*bs[3]+cs[3]*ds[3])
		}
	}
	dit16Columns(z)
}

// dit16Columns is the second stage of dit16: conjugate twiddles, then the
// inverse butterflies of span 16.
func dit16Columns(x []complex128) {
	for s := 0; s+15 < len(x); s += 16 {
		b := (*[16]complex128)(x[s : s+16])
		b[0], b[4], b[8], b[12] = dit4(b[0], b[4], b[8], b[12])
		b[1], b[5], b[9], b[13] = dit4(b[1], mulW1c(b[5]), mulW2c(b[9]), mulW3c(b[13]))
		b[2], b[6], b[10], b[14] = dit4(b[2], mulW2c(b[6]), complex(-imag(b[10]), real(b[10])), mulW6c(b[14]))
		b[3], b[7], b[11], b[15] = dit4(b[3], mulW3c(b[7]), mulW6c(b[11]), -mulW1c(b[15]))
	}
}

// dif4 is the twiddle-free radix-4 DIF butterfly of difFrom (written with
// complex operations to stay within the inlining budget).
func dif4(a, b, c, d complex128) (complex128, complex128, complex128, complex128) {
	s0, d0, s1, d1 := a+c, a-c, b+d, b-d
	m := complex(imag(d1), -real(d1)) // -i*d1
	return s0 + s1, d0 + m, s0 - s1, d0 - m
}

// dit4 is the twiddle-free radix-4 DIT butterfly of dit.
func dit4(a, b, c, d complex128) (complex128, complex128, complex128, complex128) {
	s0, d0, s1, d1 := a+c, a-c, b+d, b-d
	m := complex(imag(d1), -real(d1)) // -i*d1
	return s0 + s1, d0 - m, s0 - s1, d0 + m
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
