// The app catalog's data: Android package names of the main apps in the 24 markets the policy reads (en zh ja ko de
// fr es pt ru it tr vi id th pl nl sv ar hi bn fa he uk ms), by what kind of app each is. The team's own curation,
// written from the package names the apps are published under (a store listing's address ends `details?id=<package>`)
// as the team knows them; the stores cannot be reached from the build machines, so a name is listed only where the
// team was confident of it, and one found wrong is corrected here. Add an app under its kind; a workspace adds its
// own apps in its policy rules (appCategories) instead.

export const APP_KINDS = ["bank", "wallet", "payment", "crypto", "betting", "shopping", "delivery", "rides", "travel", "messaging", "social", "email", "store", "settings", "permission", "keyboard", "dialer", "browser"] as const;
export type AppKind = (typeof APP_KINDS)[number];

export const APP_CATALOG: Record<AppKind, readonly string[]> = {
  bank: [
    // United States, United Kingdom, global
    "com.chase.sig.android", "com.wf.wellsfargomobile", "com.infonow.bofa", "com.citi.citimobile", "com.usbank.mobilebanking", "com.konylabs.capitalone",
    "com.americanexpress.android.acctsvcs.us", "com.discoverfinancial.mobile", "com.barclays.android.barclaysmobilebanking", "uk.co.hsbc.hsbcukmobilebanking",
    "com.grppl.android.shell.CMBlloydsTSB73", "com.rbs.mobile.android.natwest", "co.uk.getmondo", "com.starlingbank.android", "com.revolut.revolut",
    // China
    "com.icbc", "com.chinamworld.main", "cmb.pb", "com.android.bankabc", "com.chinamworld.bocmbci", "com.bankcomm.Bankcomm", "com.jd.jrapp",
    // Japan, Korea
    "com.kbstar.kbbank", "com.shinhan.sbanking", "com.kakaobank.channel",
    // Germany, France, Spain, Italy, Netherlands, Sweden, Poland
    "de.number26.android", "de.commerzbanking.mobil", "com.starfinanz.smob.android.sfinanzstatus", "de.dkb.portalapp", "de.ingdiba.bankingapp", "de.comdirect.android", "de.traderepublic.app",
    "fr.creditagricole.androidapp", "net.bnpparibas.mescomptes", "fr.lcl.android.customerarea", "mobi.societegenerale.mobile.lappli", "fr.banquepopulaire.cyberplus", "com.boursorama.android.clients",
    "es.bancosantander.apps", "com.bbva.bbvacontigo", "es.lacaixa.mobile.android.newwapicon", "com.bankinter.launcher", "es.openbank.mobile",
    "com.latuabancaperandroid", "com.unicredit", "com.fineco.it", "it.poste.postepay",
    "com.abnamro.nl.mobile.payments", "nl.rabomobiel", "com.ing.mobile", "com.bunq.android",
    "se.swedbank.mobil", "com.seb.privatkund", "com.handelsbanken.mobile.android", "com.bankid.bus",
    "pl.pkobp.iko", "pl.mbank", "pl.ing.mojeing", "pl.bzwbk.bzwbk24",
    // Brazil, Mexico, Portugal
    "com.nu.production", "br.com.intermedium", "com.itau", "br.com.bb.android", "com.bradesco", "br.com.gabba.Caixa", "com.santander.app",
    "com.bancomer.mbanking", "com.citibanamex.banamexmobile",
    // Russia, Ukraine, Turkey
    "ru.sberbankmobile", "com.idamob.tinkoff.android", "ru.vtb24.mobilebanking.android", "ru.alfabank.mobile.android",
    "ua.privatbank.ap24", "com.ftband.mono",
    "com.ykb.android", "com.garanti.cepsubesi", "com.akbank.android.apps.akbank_direkt", "com.ziraat.ziraatmobil", "com.vakifbank.mobile", "com.pozitron.iscep", "com.finansbank.mobile.cepsube", "com.denizbank.mobildeniz",
    // Vietnam, Indonesia, Thailand, Malaysia
    "com.VCB", "com.vietinbank.ipay",
    "com.bca", "id.co.bri.brimo", "src.com.bni", "id.bmri.livin", "com.btpn.dc",
    "com.kasikorn.retail.mbanking.wap", "com.kbank.kplus", "com.scb.phone", "ktbcs.netbank",
    "com.maybank2u.life",
    // Saudi Arabia, UAE, Israel, India, Bangladesh, Iran
    "com.alrajhiretailapp",
    "com.ideomobile.hapoalim",
    "com.csam.icici.bank.imobile", "com.snapwork.hdfc", "com.sbi.lotusintouch", "com.axis.mobile", "com.msf.kbank.mobile",
    "com.dbbl.mbs.apps.main",
  ],
  wallet: [
    "com.google.android.apps.walletnfcrel", "com.samsung.android.spay", "com.eg.android.AlipayGphone", "jp.ne.paypay.android.app", "com.kakaopay.app", "viva.republica.toss",
    "net.one97.paytm", "com.phonepe.app", "com.google.android.apps.nbu.paisa.user", "in.org.npci.upiapp", "com.mobikwik_new", "com.dreamplug.androidapp",
    "com.mservice.momotransfer", "vn.com.vng.zalopay", "id.dana", "ovo.id", "com.telkom.mwallet", "th.co.truemoney.wallet", "my.com.tngdigital.ewallet",
    "com.bKash.customerapp", "com.konasl.nagad", "com.techlogix.mobilinkcustomer",
    "com.picpay", "com.mercadopago.wallet", "ru.yoo.money", "com.mobillium.papara", "sa.com.stcpay", "ir.asanpardakht.android", "com.unionpay",
  ],
  payment: [
    "com.paypal.android.p2pmobile", "com.venmo", "com.squareup.cash", "com.zellepay.zelle", "com.klarna.android", "com.affirm.central", "com.transferwise.android", "com.remitly.androidapp",
    "com.lydia", "com.satispay.customer", "se.bankgirot.swish", "pt.sibs.android.mbway", "com.abnamro.nl.tikkie", "com.bnhp.payments.paymentsapp",
  ],
  crypto: [
    "com.coinbase.android", "com.binance.dev", "com.kraken.trade", "io.metamask", "com.wallet.crypto.trustapp", "piuk.blockchain.android", "com.bybit.app", "com.okinc.okex.gp",
    "co.mona.android", "exodusmovement.exodus", "app.phantom", "com.bitcoin.mwallet", "com.robinhood.android", "com.etoro.openbook",
    "com.btckorea.bithumb", "com.bitflyer.android.bfwallet", "jp.coincheck.android", "com.btcturk",
    "com.zerodha.kite3", "com.nextbillion.groww",
  ],
  betting: ["com.draftkings.sportsbook", "com.fanduel.sportsbook"],
  shopping: [
    "com.amazon.mShop.android.shopping", "in.amazon.mShop.android.shopping", "com.ebay.mobile", "com.etsy.android", "com.walmart.android", "com.target.ui", "com.contextlogic.wish",
    "com.alibaba.aliexpresshd", "com.einnovation.temu", "com.zzkko",
    "com.taobao.taobao", "com.tmall.wireless", "com.jingdong.app.mall", "com.xunmeng.pinduoduo", "com.achievo.vipshop", "com.taobao.idlefish",
    "jp.co.rakuten.android", "com.kouzoh.mercari", "jp.co.yahoo.android.yshopping",
    "com.coupang.mobile", "com.ebay.kr.gmarket",
    "de.zalando.mobile", "fr.leboncoin", "fr.vinted", "com.cdiscount.android", "com.inditex.zara", "com.wallapop", "it.subito", "pl.allegro", "pl.tablica", "com.bol.shop", "nl.marktplaats.android",
    "com.mercadolibre", "com.shopee.br", "com.luizalabs.mlapp",
    "ru.ozon.app.android", "com.wildberries.ru", "com.avito.android", "ru.beru.android", "ua.com.rozetka.shop",
    "trendyol.com", "com.hepsiburada.ecommerce", "com.sahibinden",
    "com.shopee.vn", "vn.tiki.app.tikiandroid", "com.lazada.android", "com.tokopedia.tkpd", "com.shopee.id", "com.bukalapak.android", "com.shopee.th", "com.shopee.my",
    "com.noon.buyerapp", "com.flipkart.android", "com.myntra.android", "com.meesho.supply", "com.daraz.android", "com.digikala", "ir.divar",
  ],
  delivery: [
    "com.ubercab.eats", "com.dd.doordash", "com.grubhub.android", "com.deliveroo.orderapp", "com.global.foodpanda.android", "com.talabat", "com.application.zomato", "in.swiggy.android",
    "br.com.brainweb.ifood", "com.sankuai.meituan", "me.ele", "com.getir",
  ],
  rides: ["com.ubercab", "me.lyft.android", "com.grabtaxi.passenger", "com.gojek.app", "com.sdu.didi.psnger", "ee.mtakso.client", "ru.yandex.taxi", "com.careem.acma", "cab.snapp.passenger"],
  travel: ["com.booking", "com.airbnb.android", "com.agoda.mobile.consumer", "com.expedia.bookings", "com.traveloka.android", "de.hafas.android.db"],
  messaging: [
    "com.whatsapp", "com.whatsapp.w4b", "org.telegram.messenger", "jp.naver.line.android", "com.kakao.talk", "com.tencent.mm", "com.tencent.mobileqq", "com.facebook.orca", "com.facebook.mlite",
    "com.viber.voip", "org.thoughtcrime.securesms", "com.discord", "com.Slack", "com.skype.raider", "com.microsoft.teams", "com.google.android.apps.messaging", "com.samsung.android.messaging",
    "com.android.mms", "com.snapchat.android", "com.zing.zalo", "com.imo.android.imoim", "com.google.android.apps.tachyon", "com.wire", "im.vector.app", "com.tencent.wework",
    "com.alibaba.android.rimet", "com.ss.android.lark", "com.nhn.android.band", "com.turkcell.bip", "ir.eitaa.messenger", "im.thebot.messenger",
  ],
  social: [
    "com.instagram.android", "com.facebook.katana", "com.facebook.lite", "com.twitter.android", "com.zhiliaoapp.musically", "com.ss.android.ugc.trill", "com.ss.android.ugc.aweme", "com.sina.weibo",
    "com.xingin.xhs", "com.zhihu.android", "tv.danmaku.bili", "com.reddit.frontpage", "com.linkedin.android", "com.pinterest", "com.instagram.barcelona", "com.tumblr", "com.vkontakte.android",
    "ru.ok.android", "com.kakao.story", "com.quora.android", "com.google.android.youtube", "in.mohalla.sharechat",
  ],
  email: [
    "com.google.android.gm", "com.microsoft.office.outlook", "com.yahoo.mobile.client.android.mail", "ch.protonmail.android", "com.samsung.android.email.provider", "com.android.email",
    "com.tencent.androidqqmail", "com.netease.mail", "ru.mail.mailapp", "ru.yandex.mail", "de.gmx.mobile.android.mail", "de.web.mobile.android.mail", "com.readdle.spark", "me.bluemail.mail",
    "com.fsck.k9", "net.thunderbird.android", "com.nhn.android.mail",
  ],
  store: [
    "com.android.vending", "com.xiaomi.market", "com.huawei.appmarket", "com.sec.android.app.samsungapps", "com.heytap.market", "com.oppo.market", "com.bbk.appstore",
    "com.tencent.android.qqdownloader", "com.amazon.venezia", "ru.vk.store", "org.fdroid.fdroid", "com.apkpure.aegon", "com.farsitel.bazaar", "ir.mservices.market",
  ],
  settings: ["com.android.settings", "com.miui.securitycenter", "com.huawei.systemmanager", "com.coloros.safecenter", "com.samsung.android.lool", "com.android.systemui"],
  permission: ["com.google.android.permissioncontroller", "com.android.permissioncontroller", "com.android.packageinstaller", "com.google.android.packageinstaller"],
  keyboard: [
    "com.google.android.inputmethod.latin", "com.touchtype.swiftkey", "com.samsung.android.honeyboard", "com.sohu.inputmethod.sogou", "com.baidu.input", "com.iflytek.inputmethod",
    "jp.co.omronsoft.openwnn", "com.adamrocker.android.input.simeji", "com.google.android.inputmethod.japanese", "com.google.android.apps.inputmethod.hindi",
  ],
  dialer: ["com.google.android.dialer", "com.android.dialer", "com.samsung.android.dialer", "com.android.contacts", "com.samsung.android.app.contacts", "com.truecaller"],
  browser: [
    "com.android.chrome", "org.mozilla.firefox", "com.opera.browser", "com.microsoft.emmx", "com.sec.android.app.sbrowser", "com.UCMobile.intl", "com.brave.browser",
    "com.duckduckgo.mobile.android", "com.yandex.browser", "com.tencent.mtt", "com.huawei.browser",
  ],
};
