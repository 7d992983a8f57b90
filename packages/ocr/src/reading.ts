// What a reader returns: the texts a person sees on the screen, each with its box in the screenshot's pixels.

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
}

export interface OcrReader {
  /** Reads a screenshot (PNG or JPEG bytes). */
  read(image: Uint8Array, opts?: ReadOptions): Promise<OcrReading>;
  /** Ends the reader's worker. */
  close(): Promise<void>;
}

/** Tesseract's names of the languages read by default: Latin, Chinese, Japanese, Arabic and Devanagari scripts. */
export const DEFAULT_LANGUAGES = ["eng", "chi_sim", "jpn", "ara", "hin"] as const;
