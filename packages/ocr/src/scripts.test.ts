// Which models read a screen: one per script, the phone's locale choosing among a script's languages.
import { describe, expect, it } from "vitest";
import { ALL_MODELS, controlModels, modelOfLocale, readsOwnScript, screenModels, scriptOf } from "./scripts.ts";

describe("scripts", () => {
  it("names the 24 languages' models, as Debian's packages do", () => {
    expect(ALL_MODELS).toEqual(["eng", "chi_sim", "jpn", "kor", "deu", "fra", "spa", "por", "rus", "ita", "tur", "vie", "ind", "tha", "pol", "nld", "swe", "ara", "hin", "ben", "fas", "heb", "ukr", "msa"]);
    expect(modelOfLocale("pt-BR")).toBe("por");
    expect(modelOfLocale("zh_CN")).toBe("chi_sim");
    expect(modelOfLocale("xx")).toBeNull();
  });

  it("tells a text's script by most of its letters; any kana makes Han text Japanese", () => {
    expect(scriptOf("Pay $49.99")).toBe("Latin");
    expect(scriptOf("立即付款")).toBe("Han");
    expect(scriptOf("今すぐ支払う")).toBe("Kana");
    expect(scriptOf("지금 결제")).toBe("Hangul");
    expect(scriptOf("Оплатить Acme")).toBe("Cyrillic");
    expect(scriptOf("ادفع الآن")).toBe("Arabic");
    expect(scriptOf("$ 49.99 —")).toBeNull();
    // A wrong model reads letters of its own script into anything; what tells it is the script it should read.
    expect(readsOwnScript("jpn", "立即付款")).toBe(true);
    expect(readsOwnScript("chi_sim", "今すぐ")).toBe(false);
    expect(readsOwnScript("eng", "Оплатить")).toBe(false);
    // A stray letter among digits is no reading of a word; one Hangul or Han sign is.
    expect(readsOwnScript("ara", "0ك 713")).toBe(false);
    expect(readsOwnScript("eng", "Pay $49.99")).toBe(true);
    expect(readsOwnScript("kor", "예")).toBe(true);
  });

  it("tries the locale's model on the control first, then English, then one model per other script", () => {
    expect(controlModels(ALL_MODELS)).toEqual(["eng", "jpn", "kor", "ara", "hin", "rus", "tha", "heb", "ben", "chi_sim"]);
    expect(controlModels(ALL_MODELS, "fa-IR")[0]).toBe("fas");
    expect(controlModels(ALL_MODELS, "en-GB")).toEqual(controlModels(ALL_MODELS));
    expect(controlModels(["eng", "ara"])).toEqual(["eng", "ara"]);
  });

  it("reads a screen in its script's model: the locale's language where it writes that script, English beside a Latin one", () => {
    expect(screenModels("Latin", ALL_MODELS)).toEqual(["eng"]);
    expect(screenModels("Latin", ALL_MODELS, "de-DE")).toEqual(["eng", "deu"]);
    expect(screenModels("Latin", ALL_MODELS, "ru-RU")).toEqual(["eng"]);
    expect(screenModels("Cyrillic", ALL_MODELS, "uk-UA")).toEqual(["ukr"]);
    expect(screenModels("Cyrillic", ALL_MODELS)).toEqual(["rus"]);
    expect(screenModels("Arabic", ALL_MODELS, "fa")).toEqual(["fas"]);
    expect(screenModels("Han", ALL_MODELS)).toEqual(["chi_sim"]);
    expect(screenModels("Han", ALL_MODELS, "ja-JP")).toEqual(["jpn"]);
    expect(screenModels("Kana", ALL_MODELS)).toEqual(["jpn"]);
    expect(screenModels("Thai", ["eng"])).toEqual([]);
  });
});
