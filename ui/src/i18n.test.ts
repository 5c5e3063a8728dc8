import { afterEach, describe, expect, it } from "vitest";
import { en, setLanguage, t, zhCN } from "./i18n";

afterEach(() => setLanguage("en"));

describe("i18n", () => {
  it("has a non-empty zh-CN string for every English key and no extra keys", () => {
    const enKeys = Object.keys(en).sort();
    expect(Object.keys(zhCN).sort()).toEqual(enKeys);
    for (const key of enKeys) expect((zhCN as Record<string, string>)[key]?.trim()).toBeTruthy();
  });

  it("keeps the same placeholders in both languages", () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
    for (const [key, value] of Object.entries(en)) {
      expect(names((zhCN as Record<string, string>)[key] ?? ""), key).toEqual(names(value));
    }
  });

  it("fills placeholders and switches language", () => {
    expect(t("sidebar.waiting", { count: 3 })).toBe("3 waiting for you");
    setLanguage("zh-CN");
    expect(t("chat.send")).toBe("发送");
    expect(document.documentElement.lang).toBe("zh-CN");
  });
});
