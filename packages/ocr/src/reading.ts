// What a reader returns: the texts a person sees on the screen, each with its box in the screenshot's pixels.
import { ALL_MODELS } from "./scripts.ts";

export interface OcrBounds {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

export interface OcrItem {
  /** One line of text as read (words joined by spaces). */
  text: string;
  bounds: OcrBounds;
}

export interface OcrReading {
  items: OcrItem[];
}

export interface ReadOptions {
  /** The point an action lands on (screenshot pixels): the control there is read on its own, whatever its colours. */
  around?: { x: number; y: number };
  /**
   * The phone's locale (BCP 47, e.g. "de-DE"), when the caller knows it: its language's model is tried first on the
   * control and reads the screen when it writes the control's script (German's accented letters beside English).
   */
  locale?: string;
}

export interface OcrReader {
  /** Reads a screenshot (PNG or JPEG bytes). */
  read(image: Uint8Array, opts?: ReadOptions): Promise<OcrReading>;
  /** Ends the reader's worker. */
  close(): Promise<void>;
}

/** Tesseract's names of the languages read by default: the 24 of scripts.ts, one model per script per screen. */
export const DEFAULT_LANGUAGES: readonly string[] = ALL_MODELS;
