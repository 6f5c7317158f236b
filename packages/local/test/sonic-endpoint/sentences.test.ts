import { describe, expect, test } from "vitest";
import { splitSentences } from "../../src/sonic-endpoint/sentences";

describe("splitSentences", () => {
  test.each([
    ["Thanks for calling. We will ring you back.", ["Thanks for calling.", "We will ring you back."]],
    ["Is it broken? Yes! Send another.", ["Is it broken?", "Yes!", "Send another."]],
    ["Your total is 3.5 dollars. Thanks.", ["Your total is 3.5 dollars.", "Thanks."]],
    ["Hi Mr. Lopez, this is Dr. Chen. Bye.", ["Hi Mr. Lopez, this is Dr. Chen.", "Bye."]],
    ["We open at 9 a.m. on Friday, e.g. tomorrow.", ["We open at 9 a.m. on Friday, e.g. tomorrow."]],
    ["This is J. Smith calling. Bye.", ["This is J. Smith calling.", "Bye."]],
    ["Friday... actually, Thursday at 3:30. Thanks.", ["Friday... actually, Thursday at 3:30.", "Thanks."]],
    ['He said "it broke." Then he left.', ['He said "it broke."', "Then he left."]],
    ["No terminal punctuation here", ["No terminal punctuation here"]],
    ["One sentence. And a tail without punctuation", ["One sentence.", "And a tail without punctuation"]],
    ["Order 4271.\n\nWe're sorry.  ", ["Order 4271.", "We're sorry."]],
    ["Bye. 4271 is the number.", ["Bye.", "4271 is the number."]],
  ])("%j", (text, sentences) => {
    expect(splitSentences(text)).toEqual(sentences);
  });

  test("pieces without a letter or digit join a neighbour instead of standing alone", () => {
    expect(splitSentences("Hello. ... Bye.")).toEqual(["Hello. ...", "Bye."]);
    expect(splitSentences("... ! Hello. Bye.")).toEqual(["... ! Hello.", "Bye."]);
    expect(splitSentences("?! ...")).toEqual(["?! ..."]);
  });

  test("blank text has no sentences", () => {
    expect(splitSentences("")).toEqual([]);
    expect(splitSentences(" \n\t ")).toEqual([]);
  });

  test("keeps every word, in order", () => {
    const text =
      "Hi Maria, this is Acme support about order 4271. We're sorry it arrived damaged; a replacement is on its way. Call 555-0100 at 9 a.m. please. Thanks!";
    const sentences = splitSentences(text);
    expect(sentences).toHaveLength(4);
    expect(sentences.join(" ").split(/\s+/)).toEqual(text.split(/\s+/));
  });

  test("a long text without sentence ends is one piece", () => {
    const text = "a ".repeat(100_000).trim();
    expect(splitSentences(text)).toEqual([text]);
  });
});
