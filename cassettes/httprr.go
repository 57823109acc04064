package cassettes

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// httprrMagic is the first line of an httprr trace.
const httprrMagic = "httprr trace v1\n"

// importHTTPRR reads an httprr trace: the magic line, then per exchange a
// line "<request bytes> <response bytes>" followed by the raw HTTP/1.1
// request and response. A chunked response body is de-chunked. Every error
// names the byte offset of the exchange or of the fault.
func importHTTPRR(name string, data []byte, res *Result) error {
	if !bytes.HasPrefix(data, []byte(httprrMagic)) {
		return atOffset(name, 0, fmt.Errorf("%w: first line is not %q", ErrMalformed, httprrMagic[:len(httprrMagic)-1]))
	}
	c := newCassette()
	off := int64(len(httprrMagic))
	rest := data[len(httprrMagic):]
	for n := 0; len(rest) > 0; n++ {
		nl := bytes.IndexByte(rest, '\n')
		if nl < 0 {
			return atOffset(name, off, fmt.Errorf("exchange %d: length line has no newline: %w", n, ErrTruncated))
		}
		reqLen, respLen, err := parseLengths(rest[:nl])
		if err != nil {
			return atOffset(name, off, fmt.Errorf("exchange %d: %w", n, err))
		}
		bodyOff := off + int64(nl) + 1
		rest = rest[nl+1:]
		if int64(len(rest)) < reqLen+respLen {
			return atOffset(name, bodyOff, fmt.Errorf("exchange %d: want %d request and %d response bytes, have %d: %w", n, reqLen, respLen, len(rest), ErrTruncated))
		}
		reqWire, respWire := rest[:reqLen], rest[reqLen:reqLen+respLen]
		i, inResp, err := httprrExchange(reqWire, respWire, &res.Notes)
		if err != nil {
			at := bodyOff // the request, or the response after it
			if inResp {
				at += reqLen
			}
			return atOffset(name, at, fmt.Errorf("exchange %d: %w", n, err))
		}
		c.Interactions = append(c.Interactions, i)
		rest = rest[reqLen+respLen:]
		off = bodyOff + reqLen + respLen
	}
	res.Cassette = c
	return nil
}

// parseLengths parses "<n> <m>" with two non-negative decimal lengths.
func parseLengths(line []byte) (int64, int64, error) {
	a, b, ok := bytes.Cut(line, []byte(" "))
	if !ok {
		return 0, 0, fmt.Errorf("%w: length line %q is not \"<request bytes> <response bytes>\"", ErrMalformed, clip(line))
	}
	n, err1 := strconv.ParseInt(string(a), 10, 64)
	m, err2 := strconv.ParseInt(string(b), 10, 64)
	if err1 != nil || err2 != nil || n < 0 || m < 0 {
		return 0, 0, fmt.Errorf("%w: length line %q is not \"<request bytes> <response bytes>\"", ErrMalformed, clip(line))
	}
	if n > MaxFileSize || m > MaxFileSize {
		return 0, 0, fmt.Errorf("exchange larger than %d bytes: %w", MaxFileSize, ErrTooLarge)
	}
	return n, m, nil
}

// clip shortens b for an error message.
func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// httprrExchange parses one raw request and response; inResp reports
// that an error is about the response.
func httprrExchange(reqWire, respWire []byte, notes *[]string) (i *cassette.Interaction, inResp bool, err error) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(reqWire)))
	if err != nil {
		return nil, false, fmt.Errorf("%w: request: %v", ErrMalformed, err)
	}
	reqBody, err := io.ReadAll(io.LimitReader(req.Body, MaxBodySize+1))
	if err != nil {
		return nil, false, fmt.Errorf("request body: %v: %w", err, ErrTruncated)
	}
	if req.URL.Scheme == "" || req.URL.Host == "" {
		return nil, false, fmt.Errorf("%w: request target %q is not an absolute URL", ErrMalformed, req.RequestURI)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(respWire)), req)
	if err != nil {
		return nil, true, fmt.Errorf("%w: response: %v", ErrMalformed, err)
	}
	respBody, err := io.ReadAll(io.LimitReader(resp.Body, MaxBodySize+1))
	if err != nil {
		return nil, true, fmt.Errorf("response body: %v: %w", err, ErrTruncated)
	}
	if len(reqBody) > MaxBodySize || len(respBody) > MaxBodySize {
		return nil, true, fmt.Errorf("body larger than %d bytes: %w", MaxBodySize, ErrTooLarge)
	}
	i = &cassette.Interaction{}
	i.Request = cassette.Request{
		Proto: req.Proto, ProtoMajor: req.ProtoMajor, ProtoMinor: req.ProtoMinor,
		ContentLength: int64(len(reqBody)),
		Host:          req.URL.Host,
		Body:          string(reqBody),
		Headers:       canonicalHeader(req.Header),
		URL:           req.URL.String(),
		Method:        req.Method,
	}
	h := canonicalHeader(resp.Header)
	h.Del("Transfer-Encoding")
	body, err := decodeContent(string(respBody), h, notes)
	if err != nil {
		return nil, true, fmt.Errorf("response body: %w", err)
	}
	if h.Get("Content-Length") != "" {
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	length := int64(len(body))
	if resp.ContentLength < 0 {
		length = -1
	}
	i.Response = cassette.Response{
		Proto: resp.Proto, ProtoMajor: resp.ProtoMajor, ProtoMinor: resp.ProtoMinor,
		ContentLength:    length,
		TransferEncoding: resp.TransferEncoding,
		Body:             body,
		Headers:          h,
		Status:           resp.Status,
		Code:             resp.StatusCode,
	}
	return i, false, nil
}
