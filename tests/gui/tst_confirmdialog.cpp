// SPDX-License-Identifier: MIT
// The action confirmation with keys longer than a line: the dialog stays on
// the screen, and every character of what will run is shown, wrapped inside
// the dialog (none cut at its edge), and copied exactly as it will run.
#include <actions/actionengine.h>
#include <confirmactiondialog.h>
#include <wrappingtext.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QLabel>
#include <QLayout>
#include <QPushButton>
#include <QScreen>
#include <QScrollBar>
#include <QStyle>
#include <QStyleFactory>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>

#include <memory>

using namespace gatehouse;

namespace {

const QByteArray LongBase = "bull:" + QByteArray(260, 'e') + ":emails";

ScriptCall requeueCall(const QByteArray &job)
{
    ScriptCall call;
    call.action = QStringLiteral("queue.requeue");
    call.title = QStringLiteral("Requeue job");
    call.script = QStringLiteral("queue_requeue");
    call.keys = {LongBase + ":wait", LongBase + ":active", LongBase + ":" + job};
    call.args = {job};
    call.summary = QStringLiteral("Move job \"%1\" of %2 back to the queue.")
                       .arg(QString::fromLatin1(job), QString::fromLatin1(LongBase));
    return call;
}

// The confirmation's text fits its place: nothing past its right edge or
// below it, every key whole in it, and a copy of it holds every key as is.
void checkShownWhole(QMessageBox *box, const QList<QByteArray> &keys)
{
    QVERIFY(box);
    QVERIFY(QTest::qWaitForWindowExposed(box));
    const QRect screen = box->screen()->availableGeometry();
    QVERIFY2(box->frameGeometry().width() <= screen.width(),
             qPrintable(QStringLiteral("the dialog is %1 px wide on a %2 px screen")
                            .arg(box->frameGeometry().width())
                            .arg(screen.width())));
    QVERIFY2(box->frameGeometry().height() <= screen.height(),
             qPrintable(QStringLiteral("the dialog is %1 px tall on a %2 px screen")
                            .arg(box->frameGeometry().height())
                            .arg(screen.height())));
    auto *text = box->findChild<WrappingText *>(QStringLiteral("confirmText"));
    QVERIFY(text);
    QVERIFY(text->isVisible());
    QVERIFY(box->layout()->indexOf(text) >= 0);
    QVERIFY2(box->rect().contains(text->geometry()),
             qPrintable(QStringLiteral("text at %1,%2 %3x%4 in a %5x%6 box")
                            .arg(text->x())
                            .arg(text->y())
                            .arg(text->width())
                            .arg(text->height())
                            .arg(box->width())
                            .arg(box->height())));
    QVERIFY2(text->document()->idealWidth() <= text->viewport()->width(),
             qPrintable(QStringLiteral("the text needs %1 px, it has %2")
                            .arg(text->document()->idealWidth())
                            .arg(text->viewport()->width())));
    QCOMPARE(text->horizontalScrollBar()->maximum(), 0);
    // All of it shown, or (taller than half the screen) scrolled within it.
    QVERIFY2(text->document()->size().height() <= text->viewport()->height()
                 || text->verticalScrollBar()->isVisible(),
             qPrintable(QStringLiteral("the text is %1 px tall, %2 shown")
                            .arg(text->document()->size().height())
                            .arg(text->viewport()->height())));
    // Laid out on several lines: the keys wrapped, not shrunk.
    QVERIFY(text->document()->size().height() > 6 * text->fontMetrics().height());
    for (const QByteArray &key : keys)
        QVERIFY2(text->toPlainText().contains(QString::fromLatin1(key)), key.constData());
    text->selectAll();
    text->copy();
    const QString copied = QGuiApplication::clipboard()->text();
    QTextCursor cursor = text->textCursor();
    cursor.clearSelection();
    text->setTextCursor(cursor);
    for (const QByteArray &key : keys)
        QVERIFY2(copied.contains(QLatin1Char('"') + QString::fromLatin1(key) + QLatin1Char('"')),
                 key.constData());
    // The sentence above it too: whole, the queue's long key in it.
    auto *summary = box->findChild<WrappingText *>(QStringLiteral("confirmSummary"));
    QVERIFY(summary);
    QVERIFY(box->rect().contains(summary->geometry()));
    QCOMPARE(summary->toPlainText(), box->text());
    QVERIFY(summary->document()->idealWidth() <= summary->viewport()->width());
    QVERIFY(summary->document()->size().height() <= summary->viewport()->height());
    // What other code reads of the box is still there, and Cancel is the default.
    QVERIFY(box->informativeText().contains(QLatin1String("This will run exactly:")));
    QCOMPARE(box->defaultButton(), box->button(QMessageBox::Cancel));
}

} // namespace

class tst_ConfirmDialog : public QObject
{
    Q_OBJECT

private slots:
    void oneAction()
    {
        const ScriptCall call = requeueCall("job-1");
        ConfirmActionDialog dialog(call, nullptr);
        dialog.show();
        checkShownWhole(&dialog, call.keys);
        if (!qEnvironmentVariableIsEmpty("GATEHOUSE_SCREENSHOT_DIR"))
            dialog.grab().save(QDir(qEnvironmentVariable("GATEHOUSE_SCREENSHOT_DIR"))
                                   .filePath(QStringLiteral("confirm-long-keys.png")));
    }

    // Keys of 1,024 bytes that are not text (four characters each shown):
    // the dialog stays on the screen, its text scrolls, Run and Cancel show.
    void hugeKeysScrollWithin()
    {
        ScriptCall call = requeueCall("job-1");
        const QByteArray binary(1000, '\xff');
        for (QByteArray &key : call.keys)
            key = key.left(20) + binary;
        ConfirmActionDialog dialog(call, nullptr);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        const QRect screen = dialog.screen()->availableGeometry();
        QVERIFY2(dialog.frameGeometry().height() <= screen.height(),
                 qPrintable(QString::number(dialog.frameGeometry().height())));
        auto *text = dialog.findChild<WrappingText *>(QStringLiteral("confirmText"));
        QVERIFY(text);
        QVERIFY(text->verticalScrollBar()->isVisible());
        for (QMessageBox::StandardButton b : {QMessageBox::Ok, QMessageBox::Cancel})
            QVERIFY(dialog.rect().contains(dialog.button(b)->geometry()));
    }

    // A style change lays QMessageBox out again: the wrapping texts stay in
    // their places and the labels hidden.
    void styleChangeKeepsTheTexts()
    {
        const ScriptCall call = requeueCall("job-1");
        ConfirmActionDialog dialog(call, nullptr);
        dialog.show();
        QVERIFY(QTest::qWaitForWindowExposed(&dialog));
        std::unique_ptr<QStyle> fusion(QStyleFactory::create(QStringLiteral("Fusion")));
        QVERIFY(fusion);
        dialog.setStyle(fusion.get());
        QTest::qWait(50);
        checkShownWhole(&dialog, call.keys);
        for (QLabel *label : dialog.findChildren<QLabel *>()) {
            if (label->objectName() == QLatin1String("qt_msgbox_label")
                || label->objectName() == QLatin1String("qt_msgbox_informativelabel"))
                QVERIFY(!label->isVisible());
        }
        dialog.setStyle(nullptr);
    }

    void severalActions()
    {
        const QList<ScriptCall> calls{requeueCall("job-1"), requeueCall("job-2")};
        bool checked = false;
        QTimer::singleShot(0, this, [&] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            checkShownWhole(box, calls.first().keys + calls.last().keys);
            checked = true;
            if (box)
                box->button(QMessageBox::Cancel)->click();
        });
        QVERIFY(
            !ConfirmActionDialog::confirmMany(calls, QStringLiteral("Requeue 2 jobs."), nullptr));
        QVERIFY(checked);
    }
};

int main(int argc, char **argv)
{
    // A 1280x800 laptop screen (Qt's offscreen platform defaults to 800x600).
    QTemporaryDir dir;
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile file(config);
    if (!file.open(QIODevice::WriteOnly)
        || file.write(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1280,)"
                      R"( "height": 800, "logicalDpiX": 96, "logicalDpiY": 96}]})")
               < 0)
        return 2;
    file.close();
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    if (platform.isEmpty() || platform == "offscreen")
        qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toUtf8());
    QApplication app(argc, argv);
    tst_ConfirmDialog test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
#include "tst_confirmdialog.moc"
