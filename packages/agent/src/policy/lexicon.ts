// The maintained word lists of the permission checkpoint, per language. Entries are written as a person reads
// them (normalised when compiled). `^x`: only when x is the whole label; `x*`: any word starting with x (stems of
// inflected languages); CJK and Korean entries match inside words. Add words here, or per workspace in the rules.

/** What an action commits. The first six are high-risk; the rest (account, social, calendar writes, personal data) confirm-tier. */
export const CATEGORIES = ["money", "destructive", "communication", "credentials", "permission", "install", "account", "social", "calendar", "personal_data"] as const;
export type Category = (typeof CATEGORIES)[number];

export interface LanguageWords {
  /** Verbs and verb phrases that commit an action of the category. */
  verbs: Partial<Record<Category, string>>;
  /** Nouns that commit only beside a confirming word ("Confirm purchase") or as the whole label ("Checkout"). */
  nouns?: Partial<Record<Category, string>>;
  /** Verbs that open a composer ("Reply", "Forward"): they send only when a filled compose field is on the screen. */
  composeSubmit?: string;
  /** Names of places to look at (history, help, details): opening them commits nothing. */
  navigation?: string;
  /** "My …" at the start of a label: a list of one's own things. */
  ownership?: string;
  /** Whole labels that back out of something (Cancel, Not now, Don't allow). */
  dismiss?: string;
  /** First words that negate the rest ("Don't allow", "Nicht zulassen"). */
  negation?: string;
  /** Controls that confirm whatever their dialog or screen says (OK, Continue, Next). */
  confirming?: string;
  /** Objects that make a removing verb harmless ("Remove filter"). */
  benignObjects?: string;
  searchField?: string;
  composeField?: string;
  otpField?: string;
  identityField?: string;
  cardField?: string;
  /** Keyboard keys that submit the focused field. */
  enterKeys?: string;
  /** Fields that take personal data (address, phone, email, birth date). */
  personalField?: string;
  /** Settings screens whose switches grant control over the phone (accessibility, device admin, unknown sources). */
  securitySettings?: string;
  /** Compound words: an entry also matches as the last part of a longer word ("Zahlungsverlauf" ends in "verlauf"). */
  compounds?: boolean;
}

export const LEXICON: Record<string, LanguageWords> = {
  en: {
    verbs: {
      money:
        "pay|pay now|checkout|check out|buy|buy now|purchase|order now|place order|submit order|confirm order|complete order|complete purchase|subscribe|resubscribe|unsubscribe|start free trial|start trial|start my trial|free trial|try free|try it free|upgrade|upgrade now|book|book now|reserve|rent|tip|donate|transfer|send money|request money|top up|recharge|withdraw|wire|cash out|renew|cancel subscription|cancel membership|cancel plan|finish cancellation|end subscription|confirm payment|submit payment|add funds|redeem",
      destructive:
        "delete|delete all|delete account|remove|erase|erase all|wipe|factory reset|reset|reset phone|reset device|uninstall|clear all|clear data|clear storage|empty trash|empty trash now|move to trash|trash|discard|close account|deactivate|deactivate account|revoke|revoke access|permanently delete|unlink",
      communication:
        "send|send message|send now|send invite|post|tweet|retweet|repost|publish|go live|share location|share my location|share live location|share contacts|export contacts|call|call back|video call|voice call|dial|invite all",
      credentials: "save password|reveal password|export passwords|copy password",
      permission:
        "allow|allow all|allow access|grant|grant access|authorize|authorise|permit|while using the app|only this time|allow all the time|allow from this source|activate this device admin app|turn on usb debugging",
      install: "install|^update|update now|update all|update app|^get|get app|download app",
      account: "sign in|log in|login|sign up|register|create account|log out|sign out|link account",
      calendar: "add to calendar|save event|create event|add event",
      social: "follow|like|add friend|join",
    },
    nouns: { money: "payment|order|purchase|transaction|subscription|trial|membership|cancellation|booking|donation" },
    composeSubmit: "reply|reply all|forward|comment|post comment|answer",
    navigation:
      "history|options|help|how to|how do i|faq|faqs|details|learn more|more info|records|statement|statements|methods|guide|terms|policy|about|info|support|overview|activity|buy again|forgot|address book|tracking|track|recents|recent|view|see",
    ownership: "my|your",
    dismiss:
      "cancel|no|not now|no thanks|later|maybe later|remind me later|skip|close|dismiss|keep|back|go back|navigate up|deny|decline|reject|never|stay|keep editing",
    negation: "don t|do not|dont|not|never|no",
    confirming: "ok|okay|confirm|continue|yes|next|done|accept|agree|i agree|proceed|submit|apply|go|got it|finish|complete|confirm and continue|continue to payment",
    benignObjects: "filter|filters|search|query|sort|selection|from cart|from basket|from wishlist|from favorites|recent searches",
    searchField: "search|find|query|look up|lookup",
    composeField: "message|type a message|write a message|chat|compose|reply|comment|tweet|post|caption|status|entry|say something|write|composer",
    otpField: "code|otp|one time|verification|verify|passcode|pin|2fa|two factor|security code|sms code|cvv|cvc|auth code",
    identityField: "ssn|social security|social security number|passport|national id|id number|driver s license|tax id|itin",
    cardField: "card number|card no|credit card|debit card|card",
    enterKeys: "enter|send|go|done|search|return|next|↵|⏎",
    personalField: "address|street|street address|phone|phone number|mobile number|email|e mail|date of birth|birthday|full name|postal code|zip code",
    securitySettings: "accessibility|device admin|device admin apps|install unknown apps|unknown sources|usage access|notification access|developer options|usb debugging|display over other apps|modify system settings|special app access",
  },
  zh: {
    verbs: {
      money:
        "支付|付款|立即支付|确认支付|结算|去结算|下单|提交订单|立即下单|购买|立即购买|买入|订阅|开通|立即开通|续费|充值|转账|汇款|提现|打赏|捐款|捐赠|预订|预定|取消订阅|退订|免费试用|试用|升级会员|缴费",
      destructive: "删除|移除|清空|清除|卸载|恢复出厂|重置|注销|抹掉|格式化|撤销授权|解绑|永久删除",
      communication: "发送|发布|发表|发帖|发微博|拨打|呼叫|打电话|共享位置|共享实时位置|发送位置|分享位置|导出联系人",
      permission: "允许|授权|始终允许|仅在使用中允许|仅限这一次|开启权限|激活",
      install: "安装|立即安装|^更新|立即更新|下载安装",
      account: "登录|注册|退出登录",
      calendar: "添加到日历|保存日程|新建日程",
      social: "关注|点赞|加好友",
    },
    nouns: { money: "订单|交易|会员|订阅" },
    composeSubmit: "转发|回复|评论",
    navigation: "记录|历史|明细|账单|帮助|如何|怎么|说明|详情|查看|选项|物流|常见问题|忘记|教程|管理|方式|方法",
    ownership: "我的",
    dismiss: "取消|拒绝|不允许|暂不|以后再说|稍后|关闭|跳过|返回|不用了|保留|禁止|再想想",
    confirming: "确定|确认|继续|是|好|好的|下一步|完成|同意|提交|知道了",
    benignObjects: "筛选|过滤|搜索|排序|购物车",
    searchField: "搜索|查找",
    composeField: "消息|聊天|评论|回复|说点什么",
    otpField: "验证码|校验码|动态码|短信码|动态密码",
    identityField: "身份证|证件号|护照",
    cardField: "银行卡|卡号|信用卡",
    enterKeys: "发送|回车|完成|搜索|前往",
    personalField: "地址|收货地址|电话|手机号|邮箱|出生日期|姓名",
    securitySettings: "无障碍|设备管理|未知来源|安装未知应用|使用情况访问|通知使用权|开发者选项|悬浮窗",
  },
  ja: {
    verbs: {
      money:
        "支払|支払う|購入|注文を確定|注文する|決済|振込|振り込む|送金|チャージ|定期購入|無料トライアル|トライアルを開始|アップグレード|予約する|寄付|投げ銭|解約",
      destructive: "削除|消去|リセット|初期化|アンインストール|退会|ゴミ箱を空にする",
      communication: "送信|投稿|公開する|発信|電話をかける|通話|位置情報を共有",
      permission: "許可|アプリの使用中のみ許可|今回のみ|有効にする",
      install: "インストール|アップデート|^更新",
      account: "ログイン|サインイン|新規登録|会員登録|ログアウト|登録する",
      calendar: "カレンダーに追加|予定を保存",
      social: "フォロー|いいね",
    },
    nouns: { money: "注文|購入|支払い|サブスクリプション|定期" },
    composeSubmit: "転送|返信|コメント",
    navigation: "履歴|方法|について|ヘルプ|詳細|一覧|お忘れ|忘れ|よくある質問|使い方|送信済|受信トレイ|マイページ",
    dismiss: "キャンセル|許可しない|いいえ|閉じる|後で|スキップ|戻る|今はしない|拒否|しない",
    confirming: "ok|はい|次へ|確定|確認|続ける|同意する|同意|完了|登録する|決定",
    benignObjects: "フィルタ|絞り込み|条件|検索|並べ替え",
    searchField: "検索|探す",
    composeField: "メッセージ|コメント|返信|チャット",
    otpField: "認証コード|確認コード|ワンタイム|暗証番号|セキュリティコード",
    identityField: "マイナンバー|パスポート|免許証番号",
    cardField: "カード番号|クレジットカード",
    enterKeys: "送信|確定|検索|完了|実行",
    personalField: "住所|電話番号|メールアドレス|生年月日|氏名|郵便番号",
    securitySettings: "ユーザー補助|端末管理|不明なアプリ|使用状況へのアクセス|通知へのアクセス|開発者向けオプション",
  },
  ko: {
    verbs: {
      money:
        "결제|결제하기|구매|바로 구매|구매하기|주문하기|송금|이체|충전|구독|구독하기|무료 체험|체험 시작|업그레이드|예약하기|후원|기부|구독 해지|해지|출금",
      destructive: "삭제|초기화|제거|탈퇴|회원 탈퇴|계정 삭제|휴지통 비우기|영구 삭제",
      communication: "전송|보내기|게시|게시하기|위치 공유|전화 걸기|통화|발신",
      permission: "허용|항상 허용|앱 사용 중에만 허용|이번만 허용|권한 허용",
      install: "설치|^업데이트",
      account: "로그인|회원가입",
      calendar: "캘린더에 추가|일정 저장",
      social: "팔로우|좋아요",
    },
    nouns: { money: "주문|결제|구매|구독" },
    composeSubmit: "답장|댓글|전달",
    navigation: "내역|방법|안내|도움말|상세|자세히|기록|목록|잊으셨|찾기",
    dismiss: "취소|허용 안함|허용 안 함|거부|닫기|나중에|건너뛰기|아니요|돌아가기",
    negation: "안 함|안함",
    confirming: "확인|다음|계속|예|네|동의|완료|제출",
    benignObjects: "필터|검색|정렬|장바구니",
    searchField: "검색",
    composeField: "메시지|댓글|채팅",
    otpField: "인증번호|인증 번호|인증코드|인증 코드|보안코드",
    identityField: "주민등록번호|주민번호|여권",
    cardField: "카드 번호|카드번호",
    enterKeys: "전송|완료|검색|이동",
    personalField: "주소|전화번호|휴대폰 번호|이메일|생년월일|이름",
    securitySettings: "접근성|기기 관리자|출처를 알 수 없는 앱|사용 정보 접근|알림 접근|개발자 옵션",
  },
  de: {
    compounds: true,
    verbs: {
      money:
        "bezahlen|jetzt bezahlen|zahlen|zahlungspflichtig bestellen|kostenpflichtig bestellen|bestellen|jetzt bestellen|kaufen|jetzt kaufen|kauf abschließen|abonnieren|jetzt abonnieren|abo abschließen|probeabo starten|probeabo|kostenlos testen|upgraden|buchen|jetzt buchen|reservieren|spenden|trinkgeld|überweisen|geld senden|aufladen|abheben|kündigen|kündig*|abo kündigen|mitgliedschaft kündigen",
      destructive:
        "löschen|lösch*|endgültig löschen|entfernen|zurücksetzen|deinstallieren|leeren|papierkorb leeren|konto löschen|konto schließen|widerrufen|verwerfen|alles löschen",
      communication: "senden|absenden|jetzt senden|veröffentlichen|posten|standort teilen|anrufen|kontakte teilen",
      permission: "zulassen|erlauben|immer zulassen|nur diesmal|berechtigung erteilen|aktivieren",
      install: "installieren|^aktualisieren",
      account: "anmelden|einloggen|registrieren|abmelden",
      calendar: "zum kalender hinzufügen|termin speichern",
      social: "folgen|gefällt mir",
    },
    nouns: { money: "zahlung|bestellung|kauf|abo|abonnement|überweisung|transaktion|mitgliedschaft|buchung" },
    composeSubmit: "antworten|weiterleiten|kommentieren",
    navigation:
      "verlauf|historie|hilfe|wie|optionen|details|mehr erfahren|methoden|übersicht|vergessen|anleitung|info|umsätze|belege",
    ownership: "meine|mein",
    dismiss: "abbrechen|nein|nicht jetzt|später|schließen|überspringen|zurück|ablehnen|nicht zulassen|behalten",
    negation: "nicht|kein|keine",
    confirming: "ok|bestätigen|weiter|ja|fortfahren|akzeptieren|zustimmen|fertig|abschließen",
    benignObjects: "filter|suche|sortierung|auswahl|warenkorb",
    searchField: "suche|suchen",
    composeField: "nachricht|kommentar|antwort|chat|beitrag",
    otpField: "code|bestätigungscode|sicherheitscode|tan|pin|einmalpasswort|verifizierungscode",
    identityField: "personalausweis|ausweisnummer|steuer id|steuernummer|sozialversicherungsnummer|reisepass",
    cardField: "kartennummer|kreditkarte",
    enterKeys: "eingabe|senden|los|fertig|suchen|weiter",
    personalField: "adresse|straße|telefon|telefonnummer|e mail|geburtsdatum|postleitzahl",
    securitySettings: "bedienungshilfen|geräteadministrator|unbekannte apps|nutzungsdatenzugriff|benachrichtigungszugriff|entwickleroptionen|usb debugging",
  },
  es: {
    verbs: {
      money:
        "pagar|pagar ahora|comprar|comprar ahora|confirmar compra|finalizar compra|realizar pedido|hacer pedido|suscribirse|suscribirme|suscribir|prueba gratuita|empezar prueba gratuita|actualizar a premium|reservar|reservar ahora|donar|propina|transferir|enviar dinero|recargar|retirar|cancelar suscripción|darse de baja|anular suscripción",
      destructive: "eliminar|borrar|borrar todo|restablecer|desinstalar|vaciar papelera|cerrar cuenta|eliminar cuenta|revocar|quitar|descartar",
      communication: "enviar|publicar|llamar|compartir ubicación|compartir contactos",
      permission: "permitir|autorizar|conceder|solo esta vez|mientras se usa la app",
      install: "instalar|^actualizar",
      account: "iniciar sesión|registrarse|crear cuenta|cerrar sesión",
      calendar: "añadir al calendario|agregar al calendario|guardar evento",
      social: "seguir|me gusta",
    },
    nouns: { money: "compra|pedido|pago|transacción|suscripción|transferencia|reserva" },
    composeSubmit: "responder|reenviar|comentar",
    navigation: "historial|cómo|ayuda|detalle|detalles|ver|opciones|métodos|olvidaste|olvidé|preguntas frecuentes|información|más información",
    ownership: "mis|mi",
    dismiss: "cancelar|no|ahora no|más tarde|cerrar|omitir|volver|atrás|rechazar|no permitir|denegar",
    negation: "no",
    confirming: "aceptar|confirmar|continuar|sí|siguiente|listo|finalizar|de acuerdo",
    benignObjects: "filtro|filtros|búsqueda|orden|selección|carrito",
    searchField: "buscar|búsqueda",
    composeField: "mensaje|comentario|respuesta|escribe",
    otpField: "código|código de verificación|clave de un solo uso|pin|cvv",
    identityField: "dni|nie|pasaporte|número de identificación|curp|rfc|cuil|cuit|rut",
    cardField: "número de tarjeta|tarjeta",
    enterKeys: "intro|enviar|ir|buscar|listo|siguiente",
    personalField: "dirección|teléfono|correo|correo electrónico|fecha de nacimiento|código postal",
    securitySettings: "accesibilidad|administrador de dispositivos|aplicaciones desconocidas|acceso a datos de uso|acceso a notificaciones|opciones de desarrollador",
  },
  fr: {
    verbs: {
      money:
        "payer|payer maintenant|acheter|acheter maintenant|commander|valider la commande|passer commande|confirmer le paiement|s abonner|abonner|essai gratuit|commencer l essai gratuit|passer à premium|réserver|faire un don|pourboire|virer|envoyer de l argent|recharger|résilier|résilier l abonnement|se désabonner|désabonner",
      destructive: "supprimer|effacer|tout effacer|réinitialiser|désinstaller|vider la corbeille|fermer mon compte|fermer le compte|supprimer le compte|révoquer",
      communication: "envoyer|publier|appeler|partager ma position|partager la position",
      permission: "autoriser|permettre|accorder|uniquement cette fois|lorsque vous utilisez l appli",
      install: "installer|^mettre à jour",
      account: "se connecter|s inscrire|créer un compte|se déconnecter",
      calendar: "ajouter au calendrier|enregistrer l événement",
      social: "suivre|j aime",
    },
    nouns: { money: "commande|paiement|achat|transaction|abonnement|virement|réservation" },
    composeSubmit: "répondre|transférer|commenter",
    navigation: "historique|comment|aide|détails|voir|options|méthodes|moyens de paiement|oublié|en savoir plus|infos|informations|faq",
    ownership: "mes|mon|ma",
    dismiss: "annuler|non|pas maintenant|plus tard|fermer|ignorer|passer|retour|refuser|ne pas autoriser",
    negation: "ne|non",
    confirming: "ok|confirmer|continuer|oui|suivant|valider|accepter|terminer|j accepte|d accord",
    benignObjects: "filtre|filtres|recherche|tri|sélection|panier",
    searchField: "rechercher|recherche",
    composeField: "message|commentaire|réponse|écrire",
    otpField: "code|code de confirmation|code de vérification|code sms|cryptogramme",
    identityField: "numéro de sécurité sociale|passeport|carte d identité|nir",
    cardField: "numéro de carte|carte bancaire",
    enterKeys: "entrée|envoyer|rechercher|suivant",
    personalField: "adresse|téléphone|e mail|courriel|date de naissance|code postal",
    securitySettings: "accessibilité|administrateur de l appareil|applications inconnues|accès aux données d utilisation|accès aux notifications|options pour les développeurs",
  },
  pt: {
    verbs: {
      money:
        "pagar|pagar agora|comprar|comprar agora|finalizar compra|fazer pedido|assinar|assinar agora|teste grátis|iniciar teste grátis|experimentar grátis|fazer upgrade|reservar|doar|gorjeta|dar gorjeta|transferir|enviar dinheiro|recarregar|sacar|cancelar assinatura",
      destructive: "excluir|apagar|apagar tudo|redefinir|restaurar|desinstalar|esvaziar lixeira|excluir conta|encerrar conta|revogar|remover|descartar",
      communication: "enviar|publicar|ligar|compartilhar localização|compartilhar contatos",
      permission: "permitir|autorizar|conceder|apenas esta vez|durante o uso do app",
      install: "instalar|^atualizar",
      account: "entrar|fazer login|cadastrar|criar conta|sair",
      calendar: "adicionar à agenda|adicionar ao calendário|salvar evento",
      social: "seguir|curtir",
    },
    nouns: { money: "compra|pedido|pagamento|transação|assinatura|transferência|boleto|pix" },
    composeSubmit: "responder|encaminhar|comentar",
    navigation: "histórico|como|ajuda|detalhes|ver|opções|métodos|esqueci|esqueceu|extrato|saiba mais|dúvidas",
    ownership: "meus|minhas|meu|minha",
    dismiss: "cancelar|não|agora não|mais tarde|fechar|pular|voltar|recusar|não permitir|negar",
    negation: "não|nao",
    confirming: "ok|confirmar|continuar|sim|próximo|avançar|concluir|aceitar|finalizar",
    benignObjects: "filtro|filtros|busca|pesquisa|ordenação|carrinho",
    searchField: "buscar|busca|pesquisar|pesquisa",
    composeField: "mensagem|comentário|resposta|escreva",
    otpField: "código|código de verificação|token|cvv",
    identityField: "cpf|rg|cnh|passaporte|nif|cartão cidadão",
    cardField: "número do cartão|cartão",
    enterKeys: "enviar|ir|buscar|concluído|próximo",
    personalField: "endereço|telefone|celular|e mail|data de nascimento|cep",
    securitySettings: "acessibilidade|administrador do dispositivo|apps desconhecidos|acesso aos dados de uso|acesso a notificações|opções do desenvolvedor",
  },
  ru: {
    verbs: {
      money:
        "оплатить|оплатить онлайн|купить|купить сейчас|оформить заказ|заказать|подтвердить заказ|оформить подписку|подписаться|пробный период|начать пробный период|попробовать бесплатно|перевести|отправить деньги|пополнить|вывести|забронировать|пожертвовать|чаевые|отменить подписку|отписаться|продлить",
      destructive: "удалить|стереть|сбросить|сбросить настройки|удалить аккаунт|удалить страницу|очистить|очистить корзину|отозвать",
      communication: "отправить|опубликовать|позвонить|поделиться геопозицией|поделиться местоположением",
      permission: "разрешить|предоставить доступ|только в этот раз|при использовании приложения",
      install: "установить|^обновить",
      account: "войти|зарегистрироваться|выйти",
      calendar: "добавить в календарь|сохранить событие",
    },
    nouns: { money: "заказ|платеж|оплата|покупка|перевод|подписка" },
    composeSubmit: "ответить|переслать|комментировать",
    navigation: "история|как|помощь|подробнее|детали|параметры|способы|забыли|забыл|справка|операции|выписка",
    ownership: "мои|мой",
    dismiss: "отмена|отменить|нет|не сейчас|позже|закрыть|пропустить|назад|запретить|отклонить|не разрешать",
    negation: "не|нет",
    confirming: "ок|ok|подтвердить|продолжить|да|далее|готово|принять|согласен|завершить",
    benignObjects: "фильтр*|поиск|сортировк*|корзин*",
    searchField: "поиск|искать|найти",
    composeField: "сообщение|комментарий|ответ|написать",
    otpField: "код|код из смс|код подтверждения|пин|cvv",
    identityField: "паспорт|снилс|инн|серия и номер",
    cardField: "номер карты|карта",
    enterKeys: "ввод|отправить|готово|найти|далее",
    personalField: "адрес|телефон|номер телефона|почта|электронная почта|дата рождения",
    securitySettings: "специальные возможности|администратор устройства|неизвестные приложения|доступ к истории использования|доступ к уведомлениям|для разработчиков",
  },
};

export const LANGUAGES = Object.keys(LEXICON);
