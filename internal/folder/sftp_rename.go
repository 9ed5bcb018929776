package folder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
)

// renameMode is what a plain SFTP rename does onto an existing name on
// one connection's server, as its probe found.
type renameMode int

const (
	renameUnprobed   renameMode = iota
	renameRefuses               // fails, as SFTPv3 says (OpenSSH, ProFTPD)
	renameOverwrites            // replaces the target, as rename(2) (MySecureShell)
	renameUnknown               // the probe could not tell: assume it may overwrite
)

// renameMode returns what a plain rename onto an existing name does on
// c's server, probing it in dir at the connection's first rename. Only a
// connection error is returned: a probe that cannot tell (no right to
// create files in dir) is logged and read as renameUnknown.
func (f *sftpFolder) renameMode(c *sftpConn, dir string) (renameMode, error) {
	c.renameMu.Lock()
	defer c.renameMu.Unlock()
	if c.rename != renameUnprobed {
		return c.rename, nil
	}
	mode, err := f.probeRename(c, dir)
	if err != nil {
		if isConnError(err) {
			return renameUnprobed, err
		}
		mode = renameUnknown
	}
	c.rename, c.renameErr = mode, err
	switch {
	case mode == renameRefuses:
		f.log.Debug("the SFTP server refuses a rename onto an existing name")
	case c.hardlink:
		f.log.Info("the SFTP server " + renameSafety(mode, true, err))
	default:
		f.log.Warn("the SFTP server " + renameSafety(mode, false, err))
	}
	return mode, nil
}

// renameSafety says what the server's renames do and how filebridge keeps
// from overwriting there (probeErr: why the probe could not tell).
func renameSafety(mode renameMode, hardlink bool, probeErr error) string {
	var what string
	switch mode {
	case renameRefuses:
		return "refuses a rename onto an existing name: nothing is overwritten"
	case renameOverwrites:
		what = "overwrites an existing name on a plain rename"
	default:
		what = fmt.Sprintf("could not be tested for what a rename onto an existing name does (%v)", probeErr)
	}
	if hardlink {
		return what + ": filebridge links the new name (hardlink@openssh.com, which never overwrites) and removes the old one"
	}
	return what + " and has no hardlink@openssh.com: filebridge checks that the name is free before each rename " +
		"(another client writing that very name in the same instant could still be replaced)"
}

// probeRename creates two empty temporary files in dir (named as
// CreateAtomic's, so that a kill leaves nothing an inbox takes) and
// renames one onto the other. Both are removed.
func (f *sftpFolder) probeRename(c *sftpConn, dir string) (mode renameMode, err error) {
	a, b := path.Join(dir, tempName("rename-probe")), path.Join(dir, tempName("rename-probe"))
	defer func() {
		for _, p := range []string{a, b} {
			if rerr := c.sftp.Remove(p); rerr != nil && !errors.Is(rerr, fs.ErrNotExist) && !isConnError(rerr) {
				f.log.Warn("could not remove a file of the rename test; remove it by hand", "name", p, "error", rerr)
			}
		}
	}()
	for _, p := range []string{a, b} {
		fh, err := c.sftp.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
		if err != nil {
			return renameUnknown, fmt.Errorf("creating %s: %w", p, err)
		}
		if err := fh.Close(); err != nil {
			return renameUnknown, fmt.Errorf("closing %s: %w", p, err)
		}
	}
	rerr := c.sftp.Rename(a, b)
	if isConnError(rerr) {
		return renameUnknown, rerr
	}
	_, aerr := c.sftp.Lstat(a)
	_, berr := c.sftp.Lstat(b)
	switch {
	case rerr != nil && aerr == nil && berr == nil:
		return renameRefuses, nil
	case rerr == nil && errors.Is(aerr, fs.ErrNotExist) && berr == nil:
		return renameOverwrites, nil
	}
	return renameUnknown, fmt.Errorf("renaming one file onto another gave %v, and then the first %v, the second %v", rerr, aerr, berr)
}

// renameNoReplace renames from to to and never overwrites: fs.ErrExist
// when to exists. Where the plain rename refuses (renameMode) it is used
// alone; elsewhere hardlink@openssh.com and a remove when the server has
// it, else a check that to is free and the plain rename.
func (f *sftpFolder) renameNoReplace(c *sftpConn, from, to string) error {
	mode, err := f.renameMode(c, path.Dir(to))
	if err != nil {
		return err
	}
	switch {
	case mode == renameRefuses:
		return f.renameFailed(c, c.sftp.Rename(from, to), from, to)
	case c.hardlink && !c.noLink.Load():
		return f.linkRename(c, from, to)
	}
	return f.checkedRename(c, from, to)
}

// renameFailed explains the failure err of a rename or link of from to
// to. Servers report an existing target as a generic failure, so the
// target is checked to return fs.ErrExist. When the target is not there
// either, the source is checked: another client may have renamed it to
// the same target (the failure) and moved it on since (two instances
// claiming one file), and then the source is gone, fs.ErrNotExist.
func (f *sftpFolder) renameFailed(c *sftpConn, err error, from, to string) error {
	if err == nil || errors.Is(err, fs.ErrNotExist) || isConnError(err) {
		return err
	}
	if _, serr := c.sftp.Lstat(to); serr == nil {
		return fmt.Errorf("%s already exists: %w", to, fs.ErrExist)
	}
	if _, serr := c.sftp.Lstat(from); errors.Is(serr, fs.ErrNotExist) {
		return fmt.Errorf("%w; %s is gone since: %w", err, from, fs.ErrNotExist)
	}
	return err
}

// linkRename links to to from, which fails when to exists, then removes
// from. A directory cannot be linked, and some file systems have no hard
// links: when the link fails with to free and from there, from is renamed
// as checkedRename does (and, for a file, no link is tried again on c).
func (f *sftpFolder) linkRename(c *sftpConn, from, to string) error {
	err := c.sftp.Link(from, to)
	if err != nil {
		if err := f.renameFailed(c, err, from, to); errors.Is(err, fs.ErrExist) || errors.Is(err, fs.ErrNotExist) || isConnError(err) {
			return err
		}
		fi, serr := c.sftp.Lstat(from)
		if serr != nil {
			return err
		}
		if !fi.IsDir() && !c.noLink.Swap(true) {
			f.log.Warn("the SFTP server advertises hardlink@openssh.com but could not link a file: "+
				"each rename now checks that the name is free first", "name", from, "error", err)
		}
		return f.checkedRename(c, from, to)
	}
	if err := c.sftp.Remove(from); err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Undo the link, so that the file has one name, as before.
		if uerr := c.sftp.Remove(to); uerr != nil {
			f.log.Error("a file has two names after a failed rename; remove one by hand", "from", from, "to", to, "error", uerr)
		}
		return fmt.Errorf("removing %s once linked as %s: %w", from, to, err)
	}
	return nil
}

// checkedRename renames from to to once it found to free.
func (f *sftpFolder) checkedRename(c *sftpConn, from, to string) error {
	if _, err := c.sftp.Lstat(to); err == nil {
		return fmt.Errorf("%s already exists: %w", to, fs.ErrExist)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return f.renameFailed(c, c.sftp.Rename(from, to), from, to)
}

// Replace uses posix-rename@openssh.com when the server has it, else the
// plain rename where it overwrites. Otherwise it moves the old target
// aside, renames, then removes the old target (and puts it back if the
// rename fails); readers may then briefly see no file.
func (f *sftpFolder) Replace(ctx context.Context, from, to string) error {
	cfrom, ffrom, cto, fto, err := f.preparePair(from, to)
	if err != nil {
		return fmt.Errorf("replacing %s with %s on %s: %w", to, from, f, err)
	}
	err = f.run(ctx, false, func(_ context.Context, c *sftpConn) error {
		if c.posixRename && !f.noPosixRename {
			return c.sftp.PosixRename(ffrom, fto)
		}
		mode, err := f.renameMode(c, path.Dir(fto))
		if err != nil {
			return err
		}
		if mode == renameOverwrites {
			return c.sftp.Rename(ffrom, fto)
		}
		return f.replaceFallback(c, ffrom, fto)
	})
	if err != nil {
		return fmt.Errorf("replacing %s with %s on %s: %w", cto, cfrom, f, sftpError(err))
	}
	return nil
}

func (f *sftpFolder) replaceFallback(c *sftpConn, from, to string) error {
	if _, err := c.sftp.Lstat(from); err != nil {
		return err
	}
	if _, err := c.sftp.Lstat(to); errors.Is(err, fs.ErrNotExist) {
		return f.renameNoReplace(c, from, to)
	} else if err != nil {
		return err
	}
	dir, base := path.Split(to)
	aside := path.Join(dir, "."+base+"."+randomSuffix()+".old")
	if err := c.sftp.Rename(to, aside); err != nil {
		return fmt.Errorf("moving the old %s aside: %w", to, err)
	}
	if err := c.sftp.Rename(from, to); err != nil {
		if rerr := c.sftp.Rename(aside, to); rerr != nil {
			f.log.Error("could not put the old file back; restore it by hand", "from", aside, "to", to, "error", rerr)
		}
		return err
	}
	if err := c.sftp.Remove(aside); err != nil {
		f.log.Warn("could not remove the replaced file; remove it by hand", "name", aside, "error", err)
	}
	return nil
}

// RenameSafety tests, on an SFTP folder, whether the server refuses a
// rename onto an existing name (a probe with two temporary files in the
// folder's root, removed after) and says how the folder keeps from
// overwriting there. A local folder never overwrites (RENAME_NOREPLACE,
// or a link and an unlink): it returns "".
func RenameSafety(ctx context.Context, f Folder) (string, error) {
	sf, ok := f.(*sftpFolder)
	if !ok {
		return "", nil
	}
	var msg string
	err := sf.run(ctx, true, func(_ context.Context, c *sftpConn) error {
		mode, err := sf.renameMode(c, sf.root)
		if err != nil {
			return err
		}
		c.renameMu.Lock()
		probeErr := c.renameErr
		c.renameMu.Unlock()
		msg = "the server " + renameSafety(mode, c.hardlink, probeErr)
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("testing renames on %s: %w", f, sftpError(err))
	}
	return msg, nil
}
