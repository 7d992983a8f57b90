// Android key codes by name (KEYCODE_HOME or HOME) and number.
export const KEYCODES: Record<string, number> = {
  UNKNOWN: 0, SOFT_LEFT: 1, SOFT_RIGHT: 2, HOME: 3, BACK: 4, CALL: 5, ENDCALL: 6,
  "0": 7, "1": 8, "2": 9, "3": 10, "4": 11, "5": 12, "6": 13, "7": 14, "8": 15, "9": 16,
  STAR: 17, POUND: 18, DPAD_UP: 19, DPAD_DOWN: 20, DPAD_LEFT: 21, DPAD_RIGHT: 22, DPAD_CENTER: 23,
  VOLUME_UP: 24, VOLUME_DOWN: 25, POWER: 26, CAMERA: 27, CLEAR: 28,
  A: 29, B: 30, C: 31, D: 32, E: 33, F: 34, G: 35, H: 36, I: 37, J: 38, K: 39, L: 40, M: 41, N: 42, O: 43, P: 44, Q: 45, R: 46, S: 47, T: 48, U: 49, V: 50, W: 51, X: 52, Y: 53, Z: 54,
  COMMA: 55, PERIOD: 56, TAB: 61, SPACE: 62, ENTER: 66, DEL: 67, MENU: 82, SEARCH: 84, MEDIA_PLAY_PAUSE: 85,
  PAGE_UP: 92, PAGE_DOWN: 93, ESCAPE: 111, FORWARD_DEL: 112, MOVE_HOME: 122, MOVE_END: 123,
  NUMPAD_ENTER: 160, VOLUME_MUTE: 164, APP_SWITCH: 187, SLEEP: 223, WAKEUP: 224, PASTE: 279, COPY: 278, CUT: 277,
};

/** "KEYCODE_BACK", "BACK", "back" or "4" → 4; null when unknown. */
export function parseKeycode(s: string): number | null {
  if (/^\d+$/.test(s)) return Number(s);
  const name = s.toUpperCase().replace(/^KEYCODE_/, "");
  return KEYCODES[name] ?? null;
}
