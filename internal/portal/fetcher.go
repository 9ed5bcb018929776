package portal

import (
	"bytes"
	"context"
	"io"
	"maps"
	"net/url"
	"strconv"
	"sync"
)

// fetcher fetches the pages of one list: the page asked for now, and at most
// one page ahead in a goroutine. Pages are read into buffers the fetcher
// recycles, so that a long list allocates its page buffers once.
type fetcher struct {
	c       *Client
	ctx     context.Context
	path    string
	q       url.Values
	perPage int

	ahead *fetch          // the page being fetched ahead, nil when none
	free  []*bytes.Buffer // buffers not in use
}

// fetch is a page being read in the background.
type fetch struct {
	page   int
	body   *bytes.Buffer
	err    error
	done   chan struct{}
	cancel context.CancelFunc
}

// pageBufs recycles page buffers between lists (pages reach megabytes).
var pageBufs = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledPage bounds the buffers kept for reuse.
const maxPooledPage = 64 << 20

// query is the list's query with the page and its size.
func (f *fetcher) query(page int) url.Values {
	pq := url.Values{}
	maps.Copy(pq, f.q) // Set replaces a value, so the lists may be shared
	pq.Set("page", strconv.Itoa(page))
	pq.Set("itemsPerPage", strconv.Itoa(f.perPage))
	return pq
}

func (f *fetcher) buffer() *bytes.Buffer {
	if n := len(f.free); n > 0 {
		b := f.free[n-1]
		f.free = f.free[:n-1]
		return b
	}
	return pageBufs.Get().(*bytes.Buffer)
}

// release gives back the buffer of a page that has been decoded.
func (f *fetcher) release(b *bytes.Buffer) {
	if b != nil {
		f.free = append(f.free, b)
	}
}

// start begins fetching a page in the background, unless a page is
// already being fetched.
func (f *fetcher) start(page int) {
	if f.ahead != nil {
		return
	}
	ctx, cancel := context.WithCancel(f.ctx)
	a := &fetch{page: page, body: f.buffer(), done: make(chan struct{}), cancel: cancel}
	q := f.query(page)
	go func() {
		defer close(a.done)
		a.err = f.c.get(ctx, f.path, q, &rawBody{a.body})
	}()
	f.ahead = a
}

// take returns the body of a page: the one fetched ahead when it is that
// page, else fetched now.
func (f *fetcher) take(page int) (*bytes.Buffer, error) {
	if a := f.ahead; a != nil {
		f.ahead = nil
		<-a.done
		a.cancel()
		if a.page == page {
			if a.err != nil {
				f.release(a.body)
				return nil, a.err
			}
			return a.body, nil
		}
		f.release(a.body)
	}
	b := f.buffer()
	if err := f.c.get(f.ctx, f.path, f.query(page), &rawBody{b}); err != nil {
		f.release(b)
		return nil, err
	}
	return b, nil
}

// cancel stops the page being fetched ahead and waits for its goroutine.
func (f *fetcher) cancel() {
	if a := f.ahead; a != nil {
		f.ahead = nil
		a.cancel()
		<-a.done
		f.release(a.body)
	}
}

// close cancels what is in flight and recycles the buffers.
func (f *fetcher) close() {
	f.cancel()
	for _, b := range f.free {
		if b.Cap() <= maxPooledPage {
			b.Reset()
			pageBufs.Put(b)
		}
	}
	f.free = nil
}

// rawBody receives a success body as it is, into a buffer the caller
// owns (see attempt).
type rawBody struct{ buf *bytes.Buffer }

// read replaces the buffer's content with the body; size is the
// announced length (-1 unknown), used to size the buffer once.
func (b *rawBody) read(r io.Reader, size int64) error {
	b.buf.Reset()
	if size > 0 && size <= maxPooledPage {
		b.buf.Grow(int(size) + bytes.MinRead)
	}
	_, err := b.buf.ReadFrom(r)
	return err
}
