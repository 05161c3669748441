/**
 * import() of an ES module outside the bundle (the CLI's: the SDK's reference integration, client/dist). The built
 * server and CLI run as scripts through V8's code cache (src/speed/code-cache.ts), where V8 has no loader for an
 * import() of their own: their entry, an ES module, hands over its import() (`handOverEsmImport`), in a global,
 * since the entry and the bundle each hold their own copy of this module. Run from the sources (tests, tsx), the
 * module's own import() serves.
 */
type EsmImport = (url: string) => Promise<unknown>;

declare global {
  var svcEsmImport: EsmImport | undefined;
}

export function esmImport(url: string): Promise<unknown> {
  return globalThis.svcEsmImport ? globalThis.svcEsmImport(url) : import(url);
}

/** Called by an entry before it runs its bundle, with a function that imports as the entry's module does. */
export function handOverEsmImport(load: EsmImport): void {
  globalThis.svcEsmImport = load;
}
