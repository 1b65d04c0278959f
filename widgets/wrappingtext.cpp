// SPDX-License-Identifier: MIT
#include "wrappingtext.h"

#include <QResizeEvent>
#include <QScreen>
#include <QTextDocument>

#include <cmath>
#include <memory>

namespace gatehouse {

namespace {

constexpr QTextOption::WrapMode Wrap = QTextOption::WrapAtWordBoundaryOrAnywhere;

} // namespace

WrappingText::WrappingText(QWidget *parent)
    : QTextEdit(parent)
{
    setReadOnly(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // Past half the screen's height it scrolls: a dialog's buttons stay on it.
    setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setWordWrapMode(Wrap);
    setLineWrapMode(QTextEdit::WidgetWidth);
    document()->setDocumentMargin(0);
    // Drawn like a label on the dialog's background; focus only when clicked,
    // so a dialog's default button keeps it.
    viewport()->setAutoFillBackground(false);
    setStyleSheet(QStringLiteral("QTextEdit { background: transparent; }"));
    setFocusPolicy(Qt::ClickFocus);
    setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(true);
    setSizePolicy(policy);
}

int WrappingText::heightForWidth(int width) const
{
    const QMargins m = contentsMargins();
    std::unique_ptr<QTextDocument> doc(document()->clone());
    QTextOption option = doc->defaultTextOption();
    option.setWrapMode(Wrap);
    doc->setDefaultTextOption(option);
    doc->setTextWidth(std::max(1, width - m.left() - m.right()));
    const int whole = int(std::ceil(doc->size().height())) + m.top() + m.bottom();
    const QScreen *shown = screen();
    return shown ? std::min(whole, shown->availableGeometry().height() / 2) : whole;
}

QSize WrappingText::sizeHint() const
{
    // As wide as the text unwrapped, up to about 70 characters and never past
    // two thirds of the screen; as tall as it is at that width.
    const QMargins m = contentsMargins();
    std::unique_ptr<QTextDocument> doc(document()->clone());
    QTextOption option = doc->defaultTextOption();
    option.setWrapMode(QTextOption::NoWrap);
    doc->setDefaultTextOption(option);
    doc->setTextWidth(-1);
    int most = fontMetrics().averageCharWidth() * 70;
    if (const QScreen *shown = screen())
        most = std::min(most, shown->availableGeometry().width() * 2 / 3);
    const int width = std::min(most, int(std::ceil(doc->idealWidth()))) + m.left() + m.right();
    return {width, heightForWidth(width)};
}

// The same: a dialog that sizes itself by its minimum (QMessageBox) is as wide
// as the text needs, up to about 70 characters.
QSize WrappingText::minimumSizeHint() const
{
    return sizeHint();
}

void WrappingText::resizeEvent(QResizeEvent *event)
{
    QTextEdit::resizeEvent(event);
    if (event->oldSize().width() != event->size().width())
        updateGeometry();
}

} // namespace gatehouse
