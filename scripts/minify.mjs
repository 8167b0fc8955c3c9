// Minifies the first load's JavaScript and CSS in a release build (issue 11:
// first-load transfer). esbuild (pinned in .tools/package.json, installed by
// scripts/setup.sh) renames locals and drops whitespace and comments; exports,
// `import.meta.url` and string contents are kept, so the glue's and the split
// loader's behaviour is unchanged. Run by scripts/split.mjs (the glue and the
// split loader, before their digests are taken) and scripts/postbuild.mjs
// (the stylesheet, whose digest in index.html is then rewritten).
import { createRequire } from 'node:module';
import { join } from 'node:path';

let esbuild = null;
function load(root) {
  if (esbuild) return esbuild;
  try {
    esbuild = createRequire(join(root, '.tools', 'package.json'))('esbuild');
  } catch (e) {
    throw new Error(`minify: esbuild is not installed in .tools/ (scripts/setup.sh installs it): ${e.message}`);
  }
  return esbuild;
}

function minify(root, code, loader, what) {
  try {
    return load(root).transformSync(code, { loader, minify: true, format: loader === 'js' ? 'esm' : undefined, legalComments: 'none' }).code;
  } catch (e) {
    throw new Error(`minify: ${what} could not be minified: ${e.message}`);
  }
}

/** An ES module (wasm-bindgen's glue, the split loader), minified. */
export const minifyJs = (root, code, what) => minify(root, code, 'js', what);
/** A stylesheet, minified. */
export const minifyCss = (root, code, what) => minify(root, code, 'css', what);
