/** One file to mirror: where it sits in the repository and where its bytes come from. */
export interface SourceFile {
  /** Repository-relative path with `/` separators; also its path under the output directory. */
  path: string;
  /** Size from the listing, checked against the bytes copied (a hub entry without one is refused). */
  size: number;
  /** Where the bytes are read: a hub `resolve` URL or a rigging URL. Listed in `provenance.json`. */
  url: string;
}
