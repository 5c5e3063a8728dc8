/**
 * The texts of a server's request for the chat's model (MCP sampling, F-99), each under who it
 * speaks as — the server's instructions, what the server writes, what it wrote as if the model
 * had — with invisible characters revealed and counted and a long text behind "Show all". The
 * same on the card that asks the user and on the call that keeps the exchange, so a text
 * dressed up as another is told apart in both.
 */
import { t } from "../i18n";
import { reveal } from "../reveal";
import type { SampledText } from "../types";
import { HiddenCharsWarning, PayloadPane, RevealedText } from "./Payload";

export function SampledTexts({
  server,
  system,
  messages,
  answer,
}: {
  server: string;
  system: string | null;
  messages: SampledText[];
  answer?: string;
}) {
  const texts = [
    ...(system ? [{ who: "system", heading: t("elicit.samplingSystem"), text: system }] : []),
    ...messages.map((m) => ({
      who: m.role,
      heading: m.role === "user" ? t("elicit.samplingUser", { server }) : t("elicit.samplingAssistant"),
      text: m.text,
    })),
    ...(answer === undefined ? [] : [{ who: "answer", heading: t("tool.lentAnswer"), text: answer }]),
  ].map((part) => ({ ...part, shown: reveal(part.text) }));
  return (
    <>
      <HiddenCharsWarning count={texts.reduce((n, part) => n + part.shown.hidden, 0)} result={false} />
      {texts.map((part, i) => (
        <section key={i} data-sampled={part.who}>
          <h4 class="small muted">{part.heading}</h4>
          <PayloadPane lines={part.text.split("\n").length}>
            <RevealedText segments={part.shown.segments} />
          </PayloadPane>
        </section>
      ))}
    </>
  );
}
