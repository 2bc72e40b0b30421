/**
 * The phone's pages in the languages the widget speaks. The page takes the
 * widget's language from the `l` parameter the worker itself put in the
 * handoff and return URLs (from the link request's `lang`), else from the
 * phone's `Accept-Language`, else English.
 */
export const PAGE_LANGS = ['en', 'fr', 'de', 'es', 'ar'] as const;
export type PageLang = (typeof PAGE_LANGS)[number];

export interface PageStrings {
  done: readonly [string, string];
  notFinished: readonly [string, string];
  linkGone: readonly [string, string];
  returnGone: readonly [string, string];
  enterCode: readonly [string, string];
  claimEnded: readonly [string, string];
  /** The handoff URL's page before the hosted flow (a GET never uses the link up). */
  continueTitle: readonly [string, string];
  /** `{partner}`: the partner's display name. */
  requestedBy: string;
  continue: string;
  codeLabel: string;
  confirm: string;
  sixDigits: string;
  /** `{n}` tries left after a wrong code. */
  wrongCode: (left: number) => string;
}

export const PAGE_STRINGS: Record<PageLang, PageStrings> = {
  en: {
    done: ['All done', 'Go back to your computer: it continues there by itself. You can close this page.'],
    notFinished: ['We could not finish here', 'Go back to your computer to see what happens next. You can close this page.'],
    linkGone: [
      'This link no longer works',
      'It was already opened, or it has expired. Go back to where you started: a new one is shown there.',
    ],
    returnGone: ['This page was already used', 'If you finished the steps, go back to your computer: it continues there by itself.'],
    enterCode: ['One last step', 'Enter the code shown on the screen where you started. It keeps someone else from using your check.'],
    claimEnded: ['This check has ended', 'The code was entered wrongly too many times, or the time ran out. Start again where you began.'],
    continueTitle: [
      'Continue your identity check',
      'You started an identity check on another screen. Continue here on this phone; at the end you will be asked for the code shown there.',
    ],
    requestedBy: 'Requested by {partner}.',
    continue: 'Continue',
    codeLabel: 'Code',
    confirm: 'Confirm',
    sixDigits: 'Enter the 6 digits of the code.',
    wrongCode: (n) => `That code is not right. ${n === 1 ? '1 try' : `${n} tries`} left.`,
  },
  fr: {
    done: ['C’est terminé', 'Retournez sur votre ordinateur : la suite s’y affiche d’elle-même. Vous pouvez fermer cette page.'],
    notFinished: ['Nous n’avons pas pu terminer ici', 'Retournez sur votre ordinateur pour voir la suite. Vous pouvez fermer cette page.'],
    linkGone: [
      'Ce lien ne fonctionne plus',
      'Il a déjà été ouvert, ou il a expiré. Retournez là où vous avez commencé : un nouveau lien y est affiché.',
    ],
    returnGone: [
      'Cette page a déjà été utilisée',
      'Si vous avez terminé les étapes, retournez sur votre ordinateur : la suite s’y affiche d’elle-même.',
    ],
    enterCode: [
      'Une dernière étape',
      'Saisissez le code affiché sur l’écran où vous avez commencé. Il empêche quelqu’un d’autre d’utiliser votre vérification.',
    ],
    claimEnded: [
      'Cette vérification est terminée',
      'Le code a été mal saisi trop de fois, ou le délai est dépassé. Recommencez là où vous avez commencé.',
    ],
    continueTitle: [
      'Poursuivre votre vérification d’identité',
      'Vous avez commencé une vérification d’identité sur un autre écran. Poursuivez ici sur ce téléphone ; à la fin, le code affiché là-bas vous sera demandé.',
    ],
    requestedBy: 'Demandée par {partner}.',
    continue: 'Continuer',
    codeLabel: 'Code',
    confirm: 'Confirmer',
    sixDigits: 'Saisissez les 6 chiffres du code.',
    wrongCode: (n) => `Ce code n’est pas le bon. ${n === 1 ? '1 essai restant' : `${n} essais restants`}.`,
  },
  de: {
    done: ['Fertig', 'Gehen Sie zurück zu Ihrem Computer: Dort geht es von selbst weiter. Sie können diese Seite schließen.'],
    notFinished: [
      'Wir konnten hier nicht abschließen',
      'Gehen Sie zurück zu Ihrem Computer, um zu sehen, wie es weitergeht. Sie können diese Seite schließen.',
    ],
    linkGone: [
      'Dieser Link funktioniert nicht mehr',
      'Er wurde schon geöffnet oder ist abgelaufen. Gehen Sie zurück, wo Sie begonnen haben: Dort wird ein neuer angezeigt.',
    ],
    returnGone: [
      'Diese Seite wurde schon verwendet',
      'Wenn Sie die Schritte abgeschlossen haben, gehen Sie zurück zu Ihrem Computer: Dort geht es von selbst weiter.',
    ],
    enterCode: [
      'Ein letzter Schritt',
      'Geben Sie den Code ein, der auf dem Bildschirm angezeigt wird, auf dem Sie begonnen haben. So kann niemand sonst Ihre Prüfung verwenden.',
    ],
    claimEnded: [
      'Diese Prüfung ist beendet',
      'Der Code wurde zu oft falsch eingegeben, oder die Zeit ist abgelaufen. Beginnen Sie dort neu, wo Sie angefangen haben.',
    ],
    continueTitle: [
      'Identitätsprüfung fortsetzen',
      'Sie haben eine Identitätsprüfung auf einem anderen Bildschirm begonnen. Fahren Sie hier auf diesem Telefon fort; am Ende werden Sie nach dem dort angezeigten Code gefragt.',
    ],
    requestedBy: 'Angefordert von {partner}.',
    continue: 'Weiter',
    codeLabel: 'Code',
    confirm: 'Bestätigen',
    sixDigits: 'Geben Sie die 6 Ziffern des Codes ein.',
    wrongCode: (n) => `Dieser Code stimmt nicht. Noch ${n === 1 ? '1 Versuch' : `${n} Versuche`}.`,
  },
  es: {
    done: ['Listo', 'Vuelve a tu ordenador: allí continúa solo. Puedes cerrar esta página.'],
    notFinished: ['No pudimos terminar aquí', 'Vuelve a tu ordenador para ver qué sigue. Puedes cerrar esta página.'],
    linkGone: ['Este enlace ya no funciona', 'Ya se abrió o ha caducado. Vuelve a donde empezaste: allí se muestra uno nuevo.'],
    returnGone: ['Esta página ya se usó', 'Si terminaste los pasos, vuelve a tu ordenador: allí continúa solo.'],
    enterCode: [
      'Un último paso',
      'Introduce el código que aparece en la pantalla donde empezaste. Así nadie más puede usar tu verificación.',
    ],
    claimEnded: [
      'Esta verificación ha terminado',
      'El código se introdujo mal demasiadas veces, o se acabó el tiempo. Vuelve a empezar donde empezaste.',
    ],
    continueTitle: [
      'Continúa tu verificación de identidad',
      'Empezaste una verificación de identidad en otra pantalla. Continúa aquí en este teléfono; al final se te pedirá el código que aparece allí.',
    ],
    requestedBy: 'Solicitada por {partner}.',
    continue: 'Continuar',
    codeLabel: 'Código',
    confirm: 'Confirmar',
    sixDigits: 'Introduce los 6 dígitos del código.',
    wrongCode: (n) => `Ese código no es correcto. ${n === 1 ? 'Queda 1 intento' : `Quedan ${n} intentos`}.`,
  },
  ar: {
    done: ['تم كل شيء', 'عد إلى حاسوبك: ستتابع الخطوات هناك تلقائيًا. يمكنك إغلاق هذه الصفحة.'],
    notFinished: ['لم نتمكن من الإنهاء هنا', 'عد إلى حاسوبك لترى ما يلي. يمكنك إغلاق هذه الصفحة.'],
    linkGone: ['هذا الرابط لم يعد يعمل', 'فُتح من قبل أو انتهت صلاحيته. عد إلى حيث بدأت: يظهر رابط جديد هناك.'],
    returnGone: ['استُخدمت هذه الصفحة من قبل', 'إذا أنهيت الخطوات، فعد إلى حاسوبك: ستتابع هناك تلقائيًا.'],
    enterCode: ['خطوة أخيرة', 'أدخل الرمز الظاهر على الشاشة التي بدأت منها. يمنع ذلك أي شخص آخر من استخدام تحققك.'],
    claimEnded: ['انتهى هذا التحقق', 'أُدخل الرمز بشكل خاطئ مرات كثيرة، أو انتهى الوقت. ابدأ من جديد حيث بدأت.'],
    continueTitle: [
      'تابع التحقق من هويتك',
      'بدأت التحقق من هويتك على شاشة أخرى. تابع هنا على هذا الهاتف؛ وفي النهاية سيُطلب منك الرمز الظاهر هناك.',
    ],
    requestedBy: 'بطلب من {partner}.',
    continue: 'متابعة',
    codeLabel: 'الرمز',
    confirm: 'تأكيد',
    sixDigits: 'أدخل أرقام الرمز الستة.',
    wrongCode: (n) => `هذا الرمز غير صحيح. المحاولات المتبقية: ${n}.`,
  },
};

const isPageLang = (l: string): l is PageLang => (PAGE_LANGS as readonly string[]).includes(l);

/** The page language: the widget's (`l`), else the phone's first supported `Accept-Language`, else English. */
export function pageLang(l: string | undefined, acceptLanguage: string | undefined): PageLang {
  const primary = (tag: string) => tag.trim().split(/[-;]/)[0]!.toLowerCase();
  if (l && isPageLang(primary(l))) return primary(l) as PageLang;
  for (const part of (acceptLanguage ?? '').split(',')) {
    const p = primary(part);
    if (isPageLang(p)) return p;
  }
  return 'en';
}
