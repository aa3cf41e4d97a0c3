// The loader hooks of list-modules.mjs (they run on the loader's thread): each module's URL is
// appended to the file, synchronously, as it loads.
import { openSync, writeSync } from 'node:fs';

let fd;

/** Opens the list: `data.file`, from `register`. */
export async function initialize(data) {
  fd = openSync(data.file, 'a');
}

/** Writes the URL, then loads the module as usual. */
export async function load(url, context, nextLoad) {
  if (url.startsWith('file:')) writeSync(fd, `${url}\n`);
  return nextLoad(url, context);
}
