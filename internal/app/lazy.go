package app

import (
	"context"
	"io"
	"sync"

	"filebridge/internal/folder"
)

// lazyFolder opens its folder on first use and again after a failed open,
// so that an outbox whose SFTP server is down when the daemon starts only
// fails its export runs (retried at their next schedule) instead of the
// whole daemon.
type lazyFolder struct {
	name string
	open func(ctx context.Context) (folder.Folder, error)

	mu sync.Mutex
	f  folder.Folder
}

var _ folder.Folder = (*lazyFolder)(nil)

func (l *lazyFolder) get(ctx context.Context) (folder.Folder, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f != nil {
		return l.f, nil
	}
	f, err := l.open(ctx)
	if err != nil {
		return nil, err
	}
	l.f = f
	return f, nil
}

func (l *lazyFolder) List(ctx context.Context, dir string) ([]folder.Entry, error) {
	f, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return f.List(ctx, dir)
}

func (l *lazyFolder) Stat(ctx context.Context, name string) (folder.Entry, error) {
	f, err := l.get(ctx)
	if err != nil {
		return folder.Entry{}, err
	}
	return f.Stat(ctx, name)
}

func (l *lazyFolder) Open(ctx context.Context, name string) (io.ReadCloser, error) {
	f, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return f.Open(ctx, name)
}

func (l *lazyFolder) CreateAtomic(ctx context.Context, name string, write func(io.Writer) error) error {
	f, err := l.get(ctx)
	if err != nil {
		return err
	}
	return f.CreateAtomic(ctx, name, write)
}

func (l *lazyFolder) Rename(ctx context.Context, from, to string) error {
	f, err := l.get(ctx)
	if err != nil {
		return err
	}
	return f.Rename(ctx, from, to)
}

func (l *lazyFolder) Replace(ctx context.Context, from, to string) error {
	f, err := l.get(ctx)
	if err != nil {
		return err
	}
	return f.Replace(ctx, from, to)
}

func (l *lazyFolder) Remove(ctx context.Context, name string) error {
	f, err := l.get(ctx)
	if err != nil {
		return err
	}
	return f.Remove(ctx, name)
}

func (l *lazyFolder) MkdirAll(ctx context.Context, dir string) error {
	f, err := l.get(ctx)
	if err != nil {
		return err
	}
	return f.MkdirAll(ctx, dir)
}

func (l *lazyFolder) String() string { return l.name }

func (l *lazyFolder) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
