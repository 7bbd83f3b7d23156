import type { Lang } from '../../i18n/messages.js';
import type { Mail } from '../../mail/mailer.js';

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

function build(to: string, subject: string, lines: string[], link: { url: string; label: string }, footer: string): Mail {
  const text = [...lines, '', `${link.label}: ${link.url}`, '', footer, '', '— Mitate'].join('\n');
  const html = `<!doctype html><html><body style="font-family:Arial,'Hiragino Sans','Noto Sans JP',sans-serif;color:#1d2733">
${lines.map((l) => `<p>${esc(l)}</p>`).join('\n')}
<p><a href="${esc(link.url)}" style="display:inline-block;background:#1f5f8b;color:#fff;padding:10px 18px;border-radius:6px;text-decoration:none">${esc(link.label)}</a></p>
<p style="color:#5b6775;font-size:12px">${esc(footer)}<br>${esc(link.url)}</p></body></html>`;
  return { to, subject, text, html };
}

/** The account mails, in the language of the request that caused them. */
export const mails = {
  verify(lang: Lang, to: string, name: string, url: string, hours: number): Mail {
    return lang === 'ja'
      ? build(to, '【Mitate】メールアドレスの確認', [`${name} 様`, 'Mitate へのご登録ありがとうございます。下のリンクからメールアドレスを確認してください。'], { url, label: 'メールアドレスを確認する' }, `このリンクの有効期限は${hours}時間です。お心当たりのない場合は、このメールを破棄してください。`)
      : build(to, 'Mitate: verify your e-mail address', [`Hello ${name},`, 'Thank you for registering with Mitate. Please confirm your e-mail address with the link below.'], { url, label: 'Verify e-mail address' }, `This link expires in ${hours} hours. If you did not register, you can ignore this message.`);
  },
  /** Someone tried to register an address that already has an account: tell its owner, not the form. */
  alreadyRegistered(lang: Lang, to: string, name: string, loginUrl: string, resetUrl: string): Mail {
    return lang === 'ja'
      ? build(to, '【Mitate】このメールアドレスはすでに登録されています', [`${name} 様`, 'このメールアドレスで Mitate への新規登録が試みられましたが、すでにアカウントがあります。サインインしてください。パスワードをお忘れの場合は再設定できます。', `パスワードの再設定: ${resetUrl}`], { url: loginUrl, label: 'サインインする' }, 'お心当たりのない場合は、このメールを破棄してください。')
      : build(to, 'Mitate: this e-mail address is already registered', [`Hello ${name},`, 'Someone tried to register a new Mitate account with this e-mail address, but it already has one. Please sign in; if you forgot your password you can reset it.', `Reset your password: ${resetUrl}`], { url: loginUrl, label: 'Sign in' }, 'If this was not you, you can ignore this message.');
  },
  reset(lang: Lang, to: string, name: string, url: string, minutes: number): Mail {
    return lang === 'ja'
      ? build(to, '【Mitate】パスワードの再設定', [`${name} 様`, 'パスワード再設定のリクエストを受け付けました。下のリンクから新しいパスワードを設定してください。'], { url, label: 'パスワードを再設定する' }, `このリンクは${minutes}分間有効で、一度だけ使用できます。お心当たりのない場合は、このメールを破棄してください。パスワードは変更されません。`)
      : build(to, 'Mitate: reset your password', [`Hello ${name},`, 'We received a request to reset your password. Choose a new password with the link below.'], { url, label: 'Reset password' }, `This link works once and expires in ${minutes} minutes. If you did not ask for it, ignore this message; your password stays unchanged.`);
  },
  invite(lang: Lang, to: string, name: string, inviter: string, org: string, url: string, days: number): Mail {
    return lang === 'ja'
      ? build(to, `【Mitate】${org} への招待`, [`${name} 様`, `${inviter} さんから Mitate の組織「${org}」に招待されました。下のリンクからパスワードを設定して参加してください。`], { url, label: '招待を承諾する' }, `このリンクの有効期限は${days}日間です。`)
      : build(to, `Mitate: you are invited to join ${org}`, [`Hello ${name},`, `${inviter} has invited you to join the organisation "${org}" on Mitate. Set your password and join with the link below.`], { url, label: 'Accept the invitation' }, `This link expires in ${days} days.`);
  },
  identityReviewed(lang: Lang, to: string, name: string, approved: boolean, reason: string | null, url: string): Mail {
    if (lang === 'ja') {
      return approved
        ? build(to, '【Mitate】本人確認が完了しました', [`${name} 様`, '提出いただいた本人確認書類の審査が完了し、本人確認が完了しました。'], { url, label: 'プロフィールを開く' }, '')
        : build(to, '【Mitate】本人確認書類が承認されませんでした', [`${name} 様`, '提出いただいた本人確認書類は承認されませんでした。', `理由: ${reason ?? ''}`, 'プロフィールから書類を再提出してください。'], { url, label: 'プロフィールを開く' }, '');
    }
    return approved
      ? build(to, 'Mitate: your identity is verified', [`Hello ${name},`, 'We have reviewed your ID documents: your identity is verified.'], { url, label: 'Open your profile' }, '')
      : build(to, 'Mitate: your ID documents were not accepted', [`Hello ${name},`, 'We could not accept the ID documents you sent.', `Reason: ${reason ?? ''}`, 'Please upload them again from your profile.'], { url, label: 'Open your profile' }, '');
  },
};
