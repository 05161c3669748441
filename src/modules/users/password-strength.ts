import { ZxcvbnFactory, type ZxcvbnResult } from '@zxcvbn-ts/core';
import * as zxcvbnCommon from '@zxcvbn-ts/language-common';
import * as zxcvbnEn from '@zxcvbn-ts/language-en';

/** The estimator reads at most this many characters: its work grows faster than the length, and a request waits for it. */
const ESTIMATED_LENGTH = 100;

/**
 * zxcvbn-ts's estimate of how guessable a password is. Its own module, imported at first use (passwords.ts): the
 * dictionaries are unpacked when the module loads, which took 0.4 s of every `svc` command's and the server's start
 * (a CPU profile of `svc --help`: unpacking, decoding and the garbage it leaves) though few ever set a password.
 */
const estimator = new ZxcvbnFactory({
  dictionary: { ...zxcvbnCommon.dictionary, ...zxcvbnEn.dictionary },
  graphs: zxcvbnCommon.adjacencyGraphs,
  translations: zxcvbnEn.translations,
  maxLength: ESTIMATED_LENGTH,
});

export const estimate = (password: string, userInputs: string[]): ZxcvbnResult => estimator.check(password, userInputs);
