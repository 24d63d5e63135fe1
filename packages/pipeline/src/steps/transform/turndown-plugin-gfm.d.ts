// turndown-plugin-gfm ships no types; this declares the one plugin used here.
declare module 'turndown-plugin-gfm' {
  import type TurndownService from 'turndown';

  /** Tables, strikethrough, task lists and highlighted code blocks. */
  export const gfm: TurndownService.Plugin;
}
