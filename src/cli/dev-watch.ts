/**
 * The project folder as `switchyard dev` watches it: one call of `onChange`
 * per burst of saves, never two at once (a save during an apply is applied
 * after it), until closed.
 *
 * Why chokidar rather than `fs.watch(root, { recursive: true })`: on Linux
 * Node's recursive watcher follows each file it found, so a file replaced by
 * a rename (`sed -i`, the atomic "safe write" of most editors: write a
 * temporary file, rename it over the old one) was seen once and then never
 * again, silently. chokidar watches the folders, re-attaches to a replaced
 * file, folds an unlink followed by an add into one change (`atomic`), and
 * picks up folders made after the start.
 */
import { relative, sep } from 'node:path';
import { watch } from 'chokidar';

/** Folders whose changes never matter to the project (at any depth). */
const IGNORED_FOLDERS = new Set(['.switchyard', 'node_modules', '.git']);
/** Editors' own files: swap and backup files, vim's write probe, Emacs locks. Their changes never matter. */
const EDITOR_FILE = /(\.sw[a-p]|\.swx|~|^4913|^\.#.*|^#.*#)$/;
/** Saves come in bursts (an editor writes, renames, touches): one apply per burst. */
const SETTLE_MS = 60;

export interface ProjectWatcherDeps {
  root: string;
  /** Applies the project; the next burst waits for it. */
  onChange: () => Promise<void>;
  /** The watcher could not watch something (too many files for the system's limit, a folder it may not read). */
  onError: (err: Error) => void;
}

export interface ProjectWatcher {
  close(): Promise<void>;
}

/** Resolves once the whole folder is being watched: a save after that is seen. */
export async function watchProject(deps: ProjectWatcherDeps): Promise<ProjectWatcher> {
  const { root, onChange, onError } = deps;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  let again = false;
  const run = () => {
    if (running) {
      again = true;
      return;
    }
    running = onChange().finally(() => {
      running = null;
      if (again) {
        again = false;
        run();
      }
    });
  };
  const ignored = (path: string) => {
    const parts = relative(root, path).split(sep);
    return parts.some((p) => IGNORED_FOLDERS.has(p)) || EDITOR_FILE.test(parts[parts.length - 1] ?? '');
  };
  const watcher = watch(root, { ignoreInitial: true, ignored, atomic: true });
  watcher.on('all', function onSave() {
    clearTimeout(timer);
    timer = setTimeout(run, SETTLE_MS);
  });
  watcher.on('error', (err) => onError(err instanceof Error ? err : new Error(String(err))));
  await new Promise<void>((resolve) => watcher.once('ready', resolve));
  return {
    async close() {
      clearTimeout(timer);
      await watcher.close();
    },
  };
}
